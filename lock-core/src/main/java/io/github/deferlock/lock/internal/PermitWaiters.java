package io.github.deferlock.lock.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This JVM's calls waiting for permits of one name, in the order they started asking. A notice on the process's
 * waiter channel says that one queued waiter of this process became eligible; it gives a wake-up to the first
 * local waiter only, which is at least as far ahead in the name's waiter queue in Redis as any other local waiter,
 * so it may take the permit. Waking every local waiter would send one acquire script per waiter for each release,
 * all but one refused.
 *
 * <p>Wake-ups are counted, not flags: two notices that reach the first waiter before it asks (two permits freed
 * at once) are two wake-ups. A waiter uses one wake-up per request it makes because of one. It passes a wake-up on
 * to the next local waiter when it was refused after using it (the notice was for a waiter behind it, or was a
 * "look again" after a resubscription), and passes on every wake-up it did not use when it gets its permit or
 * stops waiting. So no notice is lost in this JVM, and each one costs one request in the common case. A missed
 * wake-up costs latency only: every waiter also polls ({@link PollBackoff}). Threadsafe.
 */
final class PermitWaiters {
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by lock

    /** One waiting call. Only its own thread calls its methods; wake-ups come from the channel and other waiters. */
    final class Waiter {
        private final Condition raised = lock.newCondition();
        private long received; // guarded by lock: wake-ups given to this waiter
        private long used; // guarded by lock: wake-ups it made a request for, or passed on

        private Waiter() {}

        /**
         * Waits until this waiter has a wake-up it has not used, at most {@code nanos}; uses it and returns true,
         * or returns false when the time ran out first.
         */
        boolean await(long nanos) throws InterruptedException {
            lock.lockInterruptibly();
            try {
                long left = nanos;
                while (received == used && left > 0) {
                    left = raised.awaitNanos(left);
                }
                if (received > used) {
                    used++;
                    return true;
                }
                return false;
            } finally {
                lock.unlock();
            }
        }

        /** Gives one wake-up this waiter used but could not use well (it was refused) to the next local waiter. */
        void passOnOne() {
            lock.lock();
            try {
                giveNext(1);
            } finally {
                lock.unlock();
            }
        }

        /**
         * Stops waiting (it got its permit, or gave up): the wake-ups it has not used go to the next local waiter,
         * and it leaves the queue. Idempotent.
         */
        void leave() {
            lock.lock();
            try {
                if (received > used) {
                    giveNext(received - used);
                    used = received;
                }
                queue.remove(this);
            } finally {
                lock.unlock();
            }
        }

        /** Under {@link #lock}. */
        private void giveNext(long n) {
            Iterator<Waiter> it = queue.iterator();
            while (it.hasNext()) {
                if (it.next() == this) {
                    if (it.hasNext()) {
                        it.next().give(n);
                    }
                    return;
                }
            }
        }

        /** Under {@link #lock}. */
        private void give(long n) {
            received += n;
            raised.signal();
        }

        /** Wake-ups given to this waiter and not used yet (for tests). */
        long pending() {
            lock.lock();
            try {
                return received - used;
            } finally {
                lock.unlock();
            }
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

    /** A notice arrived (or the subscription changed): one wake-up for the first local waiter, if any. */
    void wakeFirst() {
        lock.lock();
        try {
            Waiter first = queue.peekFirst();
            if (first != null) {
                first.give(1);
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
