package io.github.deferlock.testing;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Watches a consumer's handler runs for per-key order and cross-key parallelism: a handler calls {@link #begin}
 * when it starts on a message (key, sequence number of the message within its key) and {@link #end} when it
 * returns or throws. Counts <em>inversions</em> (a run of a message whose key already ran a later one: a retry of
 * the same message is no inversion), <em>key overlaps</em> (a run that began while another run of its key was
 * on), the most runs at once, and how many runs began while a run of another key was on. {@link #handle} is a
 * ready-made handler body. Threadsafe: guarded by this object's monitor.
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
    private final Set<String> completed = new HashSet<>();
    private final Set<String> failedFirst = new HashSet<>();

    /**
     * A handler body for the message {@code id}, written {@code <key>-<seq>} (the key, and the message's number
     * within its key): works {@code workMillis}, throws an {@link IllegalStateException} on its first run when
     * {@code failFirstRun}, and completes otherwise.
     */
    public void handle(String id, long workMillis, boolean failFirstRun) throws InterruptedException {
        int dash = id.lastIndexOf('-');
        String key = id.substring(0, dash);
        begin(key, Integer.parseInt(id.substring(dash + 1)));
        try {
            Thread.sleep(workMillis);
            synchronized (this) {
                if (failFirstRun && failedFirst.add(id)) {
                    throw new IllegalStateException("the first run of " + id + " fails");
                }
                completed.add(id);
            }
        } finally {
            end(key);
        }
    }

    /** Messages whose {@link #handle} completed. */
    public synchronized int completed() {
        return completed.size();
    }

    /** Messages whose first {@link #handle} failed as asked. */
    public synchronized int failedFirstRuns() {
        return failedFirst.size();
    }

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

    /**
     * Checks the promise of per-key lanes: no inversion, no overlap within a key, and keys in parallel (at least
     * {@code minAtOnce} runs at once, and more than half of the runs begun beside another key's run).
     *
     * @throws AssertionError naming what failed, with the figures
     */
    public synchronized void assertKeysInOrderAndParallel(int minAtOnce) {
        if (inversions > 0 || keyOverlaps > 0) {
            throw new AssertionError("a key's messages ran out of order or together: " + this);
        }
        if (maxRunning < minAtOnce || overlappedRuns * 2 <= runs) {
            throw new AssertionError("keys did not run in parallel: " + this);
        }
    }

    @Override
    public synchronized String toString() {
        return runs + " runs, " + inversions + " per-key inversions, " + keyOverlaps + " per-key overlaps, at most "
                + maxRunning + " at once, " + overlappedRuns + " begun beside another key's run";
    }
}
