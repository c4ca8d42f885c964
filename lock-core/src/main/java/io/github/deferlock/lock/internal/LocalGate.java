package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The local FIFO gate of one key: one permit, and whoever has it is this JVM's only contender for the key or
 * its holder. Fair, so a released permit goes to the longest waiter and local hand-off is FIFO. Threadsafe.
 */
final class LocalGate {
    private final Semaphore permit = new Semaphore(1, true);

    /**
     * Enters the gate: {@code forever} waits as long as it takes, a {@code waitNanos} of 0 tries once,
     * otherwise waits until {@code start + waitNanos} by {@code clock} (and then tries once more).
     *
     * @return whether the caller has the gate
     */
    boolean enter(LockClock clock, long start, long waitNanos, boolean forever) throws InterruptedException {
        if (forever) {
            permit.acquire();
            return true;
        }
        if (waitNanos == 0) {
            return permit.tryAcquire();
        }
        while (true) {
            long left = start + waitNanos - clock.nanoTime();
            if (left <= 0) {
                return permit.tryAcquire();
            }
            if (permit.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                return true;
            }
        }
    }

    /** Enters the gate if it is free and nobody is queued for it. */
    boolean tryEnterUnqueued() {
        return !permit.hasQueuedThreads() && permit.tryAcquire();
    }

    /** Enters the gate if it is free now. */
    boolean tryEnter() {
        return permit.tryAcquire();
    }

    /** Leaves the gate; the longest waiter gets it. Call only with the gate. */
    void leave() {
        permit.release();
    }

    /** About how many threads wait for the gate (for diagnostics and tests). */
    int queueLength() {
        return permit.getQueueLength();
    }

    /** Whether another thread waits for the gate. */
    boolean hasWaiters() {
        return permit.hasQueuedThreads();
    }
}
