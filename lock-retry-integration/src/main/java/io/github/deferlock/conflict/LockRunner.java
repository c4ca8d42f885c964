package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs code under a lock and applies a conflict strategy when the lock is taken: {@link OnConflict#THROW}
 * raises {@link LockConflictException} at once, {@link OnConflict#SLEEP_RETRY} sleeps and retries within the
 * {@link SleepRetry} bounds and then raises the same exception. {@link OnConflict#DEFER} needs a message to
 * store, so it lives in {@link ConflictAwareHandler}.
 *
 * <pre>{@code
 * LockRunner runner = LockRunner.builder(locks).sleepRetry(SleepRetry.DEFAULT).build();
 * Invoice invoice = runner.withLock("order:42", OnConflict.SLEEP_RETRY, () -> billing.invoice(42));
 * }</pre>
 *
 * <p>Built runners are immutable and threadsafe; builders are not.
 */
public final class LockRunner {

    private static final Logger log = LoggerFactory.getLogger(LockRunner.class);

    private final RedisLocks locks;
    private final SleepRetry sleepRetry;
    private final ConflictListener listener;

    private LockRunner(Builder b) {
        this.locks = b.locks;
        this.sleepRetry = b.sleepRetry == null ? SleepRetry.DEFAULT : b.sleepRetry;
        this.listener = b.listener == null ? new ConflictListener() {} : b.listener;
    }

    /** Returns a builder over {@code locks}. */
    public static Builder builder(RedisLocks locks) {
        return new Builder(locks);
    }

    /** The SLEEP_RETRY bounds in force (default {@link SleepRetry#DEFAULT}). */
    public SleepRetry sleepRetry() {
        return sleepRetry;
    }

    /**
     * Acquires the lock on {@code key}, runs {@code body}, and releases the lock, applying {@code onConflict}
     * when the lock is taken.
     *
     * @return what {@code body} returned
     * @throws LockConflictException when the lock stays taken (at once for THROW, after the retry bounds for
     *     SLEEP_RETRY); it names the key, the attempts, the time waited and the holder's remaining lease
     * @throws LockLostException when the lock was lost while {@code body} ran (its result is then not
     *     returned: the protected resource may have seen another holder)
     * @throws LockException when interrupted while sleeping between tries (the interrupt flag is set again)
     * @throws HandlerFailedException wrapping a checked exception from {@code body}; unchecked ones pass as
     *     they are
     * @throws IllegalArgumentException for {@link OnConflict#DEFER}, which needs {@link ConflictAwareHandler}
     */
    public <T> T withLock(String key, OnConflict onConflict, Callable<T> body) {
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(onConflict, "onConflict cannot be null");
        Objects.requireNonNull(body, "body cannot be null");
        if (onConflict == OnConflict.DEFER) {
            throw new IllegalArgumentException("OnConflict.DEFER needs a message to store for lock '" + key
                    + "': use ConflictAwareHandler; LockRunner does THROW and SLEEP_RETRY");
        }
        DistributedLock lock = locks.get(key);
        long start = System.nanoTime();
        acquire(lock, key, onConflict, start);
        return runHeld(lock, key, body, listener);
    }

    /** Like {@link #withLock(String, OnConflict, Callable)} for a body without a result. */
    public void withLock(String key, OnConflict onConflict, Runnable body) {
        Objects.requireNonNull(body, "body cannot be null");
        withLock(key, onConflict, () -> {
            body.run();
            return null;
        });
    }

    /**
     * Takes the lock for the current thread or throws; applies THROW or SLEEP_RETRY. Used by {@link
     * ConflictAwareHandler} too.
     */
    void acquire(DistributedLock lock, String key, OnConflict onConflict, long startNanos) {
        int attempts = 0;
        long slept = 0;
        while (true) {
            attempts++;
            if (lock.tryLock()) {
                Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
                try {
                    safe(() -> listener.onAcquired(key, waited));
                } catch (Error e) { // not swallowed, but never with the lock left held
                    unlockAfterFailure(lock, key, lock.fencingToken(), e, listener);
                    throw e;
                }
                return;
            }
            Optional<Duration> ttl = lock.lastHolderTtl();
            safe(() -> listener.onConflict(key, onConflict, ttl));
            Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
            if (onConflict == OnConflict.THROW || attempts >= sleepRetry.maxAttempts()) {
                throw new LockConflictException(key, attempts, waited, ttl);
            }
            long left = sleepRetry.maxWait().toNanos() - slept;
            if (left <= 0) {
                throw new LockConflictException(key, attempts, waited, ttl);
            }
            long delay = sleepRetry.backoff().delay(attempts).toNanos();
            if (ttl.isPresent() && ttl.get().toNanos() > 0) {
                // no point sleeping past the holder's lease: the key is free by then at the latest
                delay = Math.min(delay, ttl.get().toNanos() + 1_000_000);
            }
            delay = Math.max(0, Math.min(delay, left));
            int next = attempts + 1;
            long d = delay;
            safe(() -> listener.onRetried(key, next, Duration.ofNanos(d)));
            try {
                Thread.sleep(delay / 1_000_000, (int) (delay % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockException(
                        "interrupted while waiting to retry lock '" + key + "' after " + attempts + " attempts", e);
            }
            slept += delay;
        }
    }

    /** Runs {@code body} with the lock held by this thread and releases it. */
    static <T> T runHeld(DistributedLock lock, String key, Callable<T> body, ConflictListener listener) {
        long held = System.nanoTime();
        long token = lock.fencingToken();
        T result;
        try {
            result = body.call();
        } catch (RuntimeException | Error e) {
            unlockAfterFailure(lock, key, token, e, listener);
            throw e;
        } catch (Exception e) {
            HandlerFailedException wrapped = new HandlerFailedException(key, e);
            unlockAfterFailure(lock, key, token, wrapped, listener);
            throw wrapped;
        }
        try {
            lock.unlock();
        } catch (LockLostException lost) {
            safe(() -> listener.onLockLost(key, token));
            throw lost;
        }
        safe(() -> listener.onProcessed(key, Duration.ofNanos(System.nanoTime() - held)));
        return result;
    }

    private static void unlockAfterFailure(
            DistributedLock lock, String key, long token, Throwable failure, ConflictListener listener) {
        try {
            lock.unlock();
        } catch (LockLostException lost) {
            safe(() -> listener.onLockLost(key, token));
            failure.addSuppressed(lost);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    static void safe(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("a ConflictListener threw; ignored", e);
        }
    }

    /** Builds a {@link LockRunner}. Each setting may be set once. Not threadsafe. */
    public static final class Builder {
        private final RedisLocks locks;
        private SleepRetry sleepRetry;
        private ConflictListener listener;

        private Builder(RedisLocks locks) {
            this.locks = Objects.requireNonNull(locks, "locks cannot be null");
        }

        /** The SLEEP_RETRY bounds (default {@link SleepRetry#DEFAULT}). */
        public Builder sleepRetry(SleepRetry retry) {
            Objects.requireNonNull(retry, "retry cannot be null");
            if (sleepRetry != null) {
                throw new IllegalStateException("sleepRetry was already set to " + sleepRetry);
            }
            this.sleepRetry = retry;
            return this;
        }

        /** A listener for acquired, conflict, retried, processed and lost events (default none). */
        public Builder listener(ConflictListener l) {
            Objects.requireNonNull(l, "listener cannot be null");
            if (listener != null) {
                throw new IllegalStateException("listener was already set to " + listener);
            }
            this.listener = l;
            return this;
        }

        /** Builds the runner. */
        public LockRunner build() {
            return new LockRunner(this);
        }
    }
}
