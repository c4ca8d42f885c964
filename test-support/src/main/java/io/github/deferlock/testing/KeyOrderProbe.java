package io.github.deferlock.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * Watches a consumer's handler runs for per-key order and cross-key parallelism: a handler calls {@link #begin}
 * when it starts on a message (key, sequence number of the message within its key) and {@link #end} when it
 * returns or throws. Counts <em>inversions</em> (a run of a message whose key already ran a later one: a retry of
 * the same message is no inversion), <em>key overlaps</em> (a run that began while another run of its key was
 * on), the most runs at once, and how many runs began while a run of another key was on. Threadsafe: guarded by
 * this object's monitor.
 */
public final class KeyOrderProbe {
    private final Map<String, Integer> highest = new HashMap<>();
    private final Map<String, Integer> runningPerKey = new HashMap<>();
    private int running;
    private int maxRunning;
    private long runs;
    private long overlappedRuns;
    private long inversions;
    private long keyOverlaps;

    /** A run of message {@code seq} of {@code key} begins. */
    public synchronized void begin(String key, int seq) {
        runs++;
        Integer top = highest.get(key);
        if (top != null && seq < top) {
            inversions++;
        }
        highest.merge(key, seq, Math::max);
        int ofKey = runningPerKey.merge(key, 1, Integer::sum);
        if (ofKey > 1) {
            keyOverlaps++;
        }
        if (running - (ofKey - 1) > 0) {
            overlappedRuns++;
        }
        running++;
        maxRunning = Math.max(maxRunning, running);
    }

    /** The run of {@code key} that began last ended. */
    public synchronized void end(String key) {
        runningPerKey.merge(key, -1, Integer::sum);
        running--;
    }

    /** Runs of a message after a later message of its key had run. */
    public synchronized long inversions() {
        return inversions;
    }

    /** Runs that began while another run of their key was on. */
    public synchronized long keyOverlaps() {
        return keyOverlaps;
    }

    /** The most runs on at once. */
    public synchronized int maxRunning() {
        return maxRunning;
    }

    /** Runs that began while a run of another key was on. */
    public synchronized long overlappedRuns() {
        return overlappedRuns;
    }

    /** All runs begun. */
    public synchronized long runs() {
        return runs;
    }

    @Override
    public synchronized String toString() {
        return runs + " runs, " + inversions + " per-key inversions, " + keyOverlaps + " per-key overlaps, at most "
                + maxRunning + " at once, " + overlappedRuns + " begun beside another key's run";
    }
}
