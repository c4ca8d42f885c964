package io.github.deferlock.lock.internal;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What wakes this JVM's contender for one key that waits on another process: a counter the waiter-channel
 * subscriber raises (a notice arrived, or the subscription changed and notices may have been missed).
 * Threadsafe.
 */
final class ReleaseSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition raised = lock.newCondition();
    private long count; // guarded by lock

    /** How many signals were raised so far; read before a request, pass to {@link #await}. */
    long count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    /** A release notice arrived, or the subscription changed: the contender should look again. */
    void raise() {
        lock.lock();
        try {
            count++;
            raised.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until a signal after {@code seen} was raised, at most {@code nanos}. */
    void await(long seen, long nanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long left = nanos;
            while (count == seen && left > 0) {
                left = raised.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }
}
