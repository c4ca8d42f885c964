package io.github.deferlock.lock.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This JVM's calls waiting for permits of one name, in the order they started asking. A notice on the process's
 * waiter channel says that one queued waiter of this process became eligible; it wakes only the first local
 * waiter, which is at least as far ahead in the name's waiter queue in Redis as any other local waiter, so it is
 * the one that may take the permit. Waking every local waiter would send one acquire script per waiter for each
 * release, all but one refused.
 *
 * <p>A woken waiter passes the wake-up on to the next local waiter when it was refused (the notice was for a
 * waiter behind it, or was a "look again" after a resubscription), when another notice came while its request
 * was on its way (a second permit was freed), and when it stops waiting with a wake-up it did not use. So no
 * notice is lost in this JVM, and each one costs one request in the common case. A missed wake-up costs latency
 * only: every waiter also polls ({@link PollBackoff}). Threadsafe.
 */
final class PermitWaiters {
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by lock

    /** One waiting call. Only its own thread calls its methods, except wake-ups from the channel. */
    final class Waiter {
        private final Condition raised = lock.newCondition();
        private long count; // guarded by lock; how many wake-ups reached this waiter

        private Waiter() {}

        /** How many wake-ups reached this waiter so far; read before a request, pass to {@link #await}. */
        long count() {
            lock.lock();
            try {
                return count;
            } finally {
                lock.unlock();
            }
        }

        /**
         * Waits until a wake-up after {@code seen} reached this waiter, at most {@code nanos}. Returns whether
         * one did.
         */
        boolean await(long seen, long nanos) throws InterruptedException {
            lock.lockInterruptibly();
            try {
                long left = nanos;
                while (count == seen && left > 0) {
                    left = raised.awaitNanos(left);
                }
                return count != seen;
            } finally {
                lock.unlock();
            }
        }

        /** Wakes the local waiter after this one, if any. */
        void passOn() {
            lock.lock();
            try {
                Iterator<Waiter> it = queue.iterator();
                while (it.hasNext()) {
                    if (it.next() == this) {
                        if (it.hasNext()) {
                            it.next().raise();
                        }
                        return;
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Stops waiting. When a wake-up after {@code seen} reached this waiter and was not used, the next local
         * waiter gets it.
         */
        void leave(long seen) {
            lock.lock();
            try {
                if (count != seen) {
                    passOn();
                }
                queue.remove(this);
            } finally {
                lock.unlock();
            }
        }

        /** Under {@link #lock}. */
        private void raise() {
            count++;
            raised.signal();
        }
    }

    /** A new waiting call, last in this JVM's order. */
    Waiter join() {
        lock.lock();
        try {
            Waiter w = new Waiter();
            queue.addLast(w);
            return w;
        } finally {
            lock.unlock();
        }
    }

    /** A notice arrived (or the subscription changed): wakes the first local waiter, if any. */
    void wakeFirst() {
        lock.lock();
        try {
            Waiter first = queue.peekFirst();
            if (first != null) {
                first.raise();
            }
        } finally {
            lock.unlock();
        }
    }

    /** How many calls wait now (for tests). */
    int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }
}
