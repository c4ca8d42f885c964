package io.github.deferlock.kafka.internal;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/**
 * A partition a consumer owns: its offset tracker, whether it was revoked, and how many of its records run now
 * (so a rebalance can wait for them). Threadsafe: the revoked flag and the count are guarded by this object's
 * monitor.
 */
public final class OwnedPartition {
    /** The partition. */
    public final TopicPartition tp;
    /** Its commit rule. */
    public final OffsetTracker offsets = new OffsetTracker();

    private boolean revoked;
    private int runningNow;

    /** A newly assigned partition. */
    public OwnedPartition(TopicPartition tp) {
        this.tp = tp;
    }

    /** A record of it starts; false (and nothing counted) when the partition was revoked. */
    public synchronized boolean enter() {
        if (revoked) {
            return false;
        }
        runningNow++;
        return true;
    }

    /** A record of it ended. */
    public synchronized void exit() {
        if (--runningNow == 0) {
            notifyAll();
        }
    }

    /** True once revoked or lost. */
    public synchronized boolean isRevoked() {
        return revoked;
    }

    /** Marks it revoked: no record of it starts any more. */
    public synchronized void revoke() {
        revoked = true;
    }

    /** Waits until none of its records runs, or {@code deadline} ({@link System#nanoTime()} based) passed. */
    public synchronized void awaitIdle(long deadline) {
        while (runningNow > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
