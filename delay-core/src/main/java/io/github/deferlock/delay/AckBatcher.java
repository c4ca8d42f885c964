package io.github.deferlock.delay;

import io.github.deferlock.delay.Settler.PendingAck;
import io.github.deferlock.delay.internal.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The acks of finished jobs waiting to be sent in batches. Handler threads {@link #add} them; the dispatcher
 * sends them with its next claim (one script call for both) or, when no claim comes within the ack delay or a
 * batch is full, on their own. With {@code waitForReplicas} they never ride along with a claim. Once
 * {@link #close()} took the last batch, an ack is sent at once by the thread that finished the job.
 *
 * <p>Owns the pending acks and the open flag, guarded by its own lock; it never calls out while holding it.
 * Threadsafe.
 *
 * @param <T> the payload type
 */
final class AckBatcher<T> {

    /** Told when an ack was queued, so a sleeping dispatcher can wake in time. */
    @FunctionalInterface
    interface Waker {
        /**
         * An ack was queued, to be sent at {@code sendAt}; {@code first} when the batch was empty before,
         * {@code full} when the batch is now full.
         */
        void queued(long sendAt, boolean first, boolean full);
    }

    private final Ticker ticker;
    private final long delayNanos;
    private final boolean piggyback;
    private final Settler<T> settler;
    private final Waker waker;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock:
    private final ArrayDeque<PendingAck<T>> pending = new ArrayDeque<>();
    private boolean open = true;

    /**
     * A batcher.
     *
     * @param delayNanos the longest an ack waits for a claim to ride along with
     * @param piggyback whether acks may ride along with claims (not with {@code waitForReplicas})
     */
    AckBatcher(Ticker ticker, long delayNanos, boolean piggyback, Settler<T> settler, Waker waker) {
        this.ticker = ticker;
        this.delayNanos = delayNanos;
        this.piggyback = piggyback;
        this.settler = settler;
        this.waker = waker;
    }

    /** Whether acks ride along with claims. */
    boolean piggyback() {
        return piggyback;
    }

    /** Queues a finished job's ack; after {@link #close()}, acks it at once in this thread. */
    void add(Job<T> job) {
        boolean queued;
        long sendAt = 0;
        boolean first = false;
        boolean full = false;
        lock.lock();
        try {
            queued = open;
            if (queued) {
                long now = ticker.read();
                pending.add(new PendingAck<>(job, now));
                sendAt = now + delayNanos;
                first = pending.size() == 1;
                full = pending.size() >= DelayQueue.MAX_ACKS;
            }
        } finally {
            lock.unlock();
        }
        if (queued) {
            waker.queued(sendAt, first, full);
        } else {
            settler.ack(job);
        }
    }

    /** How many acks are pending. */
    int size() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** When the oldest pending ack is due to be sent on its own; meaningless when none is pending. */
    long sendAt() {
        lock.lock();
        try {
            PendingAck<T> oldest = pending.peekFirst();
            return oldest == null ? 0 : oldest.since + delayNanos;
        } finally {
            lock.unlock();
        }
    }

    /** True when pending acks should be sent now: a full batch, or the oldest waited the ack delay. */
    boolean due(long now) {
        lock.lock();
        try {
            PendingAck<T> oldest = pending.peekFirst();
            return oldest != null && (pending.size() >= DelayQueue.MAX_ACKS || now - oldest.since - delayNanos >= 0);
        } finally {
            lock.unlock();
        }
    }

    /** True when more acks are pending than the next claim can carry: they must go first, on their own. */
    boolean moreThanAClaimCarries() {
        int size = size();
        return size > (piggyback ? DelayQueue.MAX_ACKS : 0);
    }

    /** Takes up to {@code max} pending acks, oldest first. */
    List<PendingAck<T>> drain(int max) {
        lock.lock();
        try {
            List<PendingAck<T>> out = new ArrayList<>(Math.min(max, pending.size()));
            for (PendingAck<T> a; out.size() < max && (a = pending.poll()) != null; ) {
                out.add(a);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Takes every pending ack, to be sent by the caller. */
    List<PendingAck<T>> drainAll() {
        return drain(Integer.MAX_VALUE);
    }

    /** Closes: returns the last pending acks; from now on {@link #add} acks at once. */
    List<PendingAck<T>> close() {
        lock.lock();
        try {
            open = false;
            List<PendingAck<T>> out = new ArrayList<>(pending);
            pending.clear();
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * After a failed call: acks with tries left ({@link Settler#tryAgain}) go back to the front, the others are
     * given up; after {@link #close()} those left are sent at once in this thread, as nobody else will.
     */
    void retryLater(List<PendingAck<T>> failed, RuntimeException e) {
        List<PendingAck<T>> again = new ArrayList<>(failed.size());
        for (PendingAck<T> a : failed) {
            if (Settler.tryAgain(e, ++a.failures)) {
                again.add(a);
            } else {
                settler.gaveUp(a.job, "ack", e);
            }
        }
        boolean late;
        lock.lock();
        try {
            late = !open;
            if (!late) {
                for (int i = again.size() - 1; i >= 0; i--) {
                    pending.addFirst(again.get(i));
                }
            }
        } finally {
            lock.unlock();
        }
        if (late) {
            settler.sendAcks(again);
        }
    }
}
