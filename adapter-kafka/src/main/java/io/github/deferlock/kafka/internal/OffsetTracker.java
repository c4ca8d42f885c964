package io.github.deferlock.kafka.internal;

import java.util.TreeSet;

/**
 * The commit rule of one partition: which offset may be committed given the records handed out and those
 * finished. A record is <em>started</em> when the poller hands it to a handler thread and <em>done</em> once it
 * was processed, skipped as a duplicate, deferred (its deferral stored) or dead-lettered. The safe offset is the
 * lowest offset started but not done, or, when every started record is done, one past the highest started: every
 * record below it is done, so committing it loses nothing, whatever order the handler threads finish in. Offsets
 * need not be contiguous (compacted topics, transaction markers).
 *
 * <p>Threadsafe.
 */
public final class OffsetTracker {
    private final TreeSet<Long> pending = new TreeSet<>();
    private long next = -1;
    private long committed = -1;

    /**
     * Record {@code offset} was handed out. Offsets normally arrive in increasing order; one below an earlier
     * one (the client reset its position) just holds the safe offset back until it is done.
     */
    public synchronized void started(long offset) {
        pending.add(offset);
        next = Math.max(next, offset + 1);
    }

    /** Record {@code offset} is done; it no longer holds the safe offset back. */
    public synchronized void done(long offset) {
        pending.remove(offset);
    }

    /** The offset every record below which is done, or -1 before the first record. */
    public synchronized long safe() {
        if (next < 0) {
            return -1;
        }
        return pending.isEmpty() ? next : pending.first();
    }

    /** The safe offset when it is past the last committed one, else -1: nothing new to commit. */
    public synchronized long toCommit() {
        long s = safe();
        return s > committed ? s : -1;
    }

    /** The broker confirmed a commit of {@code offset}. */
    public synchronized void committed(long offset) {
        committed = Math.max(committed, offset);
    }

    /** The last offset the broker confirmed, or -1. */
    public synchronized long lastCommitted() {
        return committed;
    }

    /** How many records are started and not done. */
    public synchronized int pending() {
        return pending.size();
    }
}
