package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.internal.RedisLock;
import java.time.Duration;
import java.util.Optional;

/**
 * The one place that applies an {@link OnConflict} when taking a lock for the current thread, for {@link
 * LockRunner}, {@link ConflictAwareHandler} and its deferred runs alike; it also tells the {@link
 * ConflictListener} about acquisitions, conflicts and retries, and counts each conflict for the conflicts view
 * ({@link ContentionRecorder}). Immutable and threadsafe.
 */
final class ConflictDispatch {
    private final SleepRetry sleepRetry;
    private final ConflictListener listener;
    private final ContentionRecorder recorder;

    ConflictDispatch(SleepRetry sleepRetry, ConflictListener listener, ContentionRecorder recorder) {
        this.sleepRetry = sleepRetry;
        this.listener = listener;
        this.recorder = recorder;
    }

    SleepRetry sleepRetry() {
        return sleepRetry;
    }

    ConflictListener listener() {
        return listener;
    }

    /**
     * Takes {@code lock} (named {@code key}) for the current thread. {@link OnConflict#THROW} tries once;
     * {@link OnConflict#SLEEP_RETRY} waits with the lock's own wait (a release ends it at once) for the
     * backoff's delay, capped by the holder's TTL, and tries again, within {@link SleepRetry#maxAttempts()}
     * tries and {@link SleepRetry#maxWait()} of waiting; {@link OnConflict#DEFER} tries once and leaves the
     * conflict to the caller.
     *
     * @param startNanos when the caller began ({@link System#nanoTime()}), for the time waited
     * @return true when the current thread holds the lock; false only for DEFER, when it is taken
     * @throws LockConflictException for THROW and SLEEP_RETRY when the lock stays taken
     * @throws LockException when Redis fails, or interrupted while waiting (the flag is set again)
     */
    boolean acquire(DistributedLock lock, String key, OnConflict strategy, long startNanos) {
        return acquire(lock, key, strategy, startNanos, false);
    }

    /**
     * Like {@link #acquire(DistributedLock, String, OnConflict, long)}; with {@code behindParked} (an ordered
     * DEFER's new message) the first try is refused while work is parked behind the key, even when it is free,
     * so the caller parks behind that work instead of overtaking it.
     */
    boolean acquire(DistributedLock lock, String key, OnConflict strategy, long startNanos, boolean behindParked) {
        int attempts = 1;
        long waitedForRetries = 0;
        LockAttempt attempt = !behindParked
                ? lock.attempt(Duration.ZERO)
                : lock instanceof RedisLock redisLock
                        ? redisLock.attemptBehindParked()
                        : lock instanceof Guard guard ? guard.attemptBehindParked() : lock.attempt(Duration.ZERO);
        while (true) {
            if (attempt.acquired()) {
                acquired(lock, key, startNanos);
                return true;
            }
            Optional<Duration> ttl = attempt.holderTtl();
            recorder.record(lock, key, strategy);
            LockRunner.safe(() -> listener.onConflict(key, strategy, ttl));
            if (strategy == OnConflict.DEFER) {
                return false;
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
            long left = sleepRetry.maxWait().toNanos() - waitedForRetries;
            if (strategy == OnConflict.THROW || attempts >= sleepRetry.maxAttempts() || left <= 0) {
                throw lock instanceof Guard guard
                        ? guard.conflict(attempts, waited, ttl)
                        : new LockConflictException(key, attempts, waited, ttl);
            }
            long delay = sleepRetry.backoff().delay(attempts).toNanos();
            if (ttl.isPresent() && ttl.get().toNanos() > 0) {
                // no point waiting past the holder's lease: the key is free by then at the latest
                delay = Math.min(delay, ttl.get().toNanos() + 1_000_000);
            }
            delay = Math.max(0, Math.min(delay, left));
            int next = attempts + 1;
            long d = delay;
            LockRunner.safe(() -> listener.onRetried(key, next, Duration.ofNanos(d)));
            attempt = waitAndTry(lock, key, delay, attempts);
            attempts = next;
            waitedForRetries += delay;
        }
    }

    /** The lock's own wait of up to {@code delayNanos}: it returns as soon as the lock is won. */
    private static LockAttempt waitAndTry(DistributedLock lock, String key, long delayNanos, int attempts) {
        try {
            return lock.attempt(Duration.ofNanos(delayNanos));
        } catch (LockException e) {
            if (e.getCause() instanceof InterruptedException interrupted) {
                throw new LockException(
                        "interrupted while waiting to retry lock '" + key + "' after " + attempts + " attempts",
                        interrupted);
            }
            throw e;
        }
    }

    /** Tells the listener; an {@link Error} from it is rethrown with the lock released, never held. */
    private void acquired(DistributedLock lock, String key, long startNanos) {
        Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
        try {
            LockRunner.safe(() -> listener.onAcquired(key, waited));
        } catch (Error e) {
            LockRunner.unlockAfterFailure(lock, key, lock.fencingToken(), e, listener);
            throw e;
        }
    }
}
