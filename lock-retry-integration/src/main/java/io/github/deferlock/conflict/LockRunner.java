package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs code under a lock and applies a blocking conflict strategy when the lock is taken: {@link
 * OnConflict#THROW} raises {@link LockConflictException} at once, {@link OnConflict#SLEEP_RETRY} waits and
 * retries within the {@link SleepRetry} bounds and then raises the same exception. {@link OnConflict#DEFER}
 * needs a message to store, so it lives in {@link ConflictAwareHandler}; {@link #withLock(String,
 * OnConflict.Blocking, Callable)} takes only the {@link OnConflict.Blocking} strategies, so passing DEFER does
 * not compile.
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
    private final ConflictDispatch dispatch;

    private LockRunner(Builder b) {
        this.locks = b.locks;
        this.dispatch = new ConflictDispatch(
                Require.orDefault(b.sleepRetry, SleepRetry.DEFAULT),
                Require.orDefault(b.listener, new ConflictListener() {}),
                ContentionRecorder.of(Require.orDefault(b.conflictStats, true)));
    }

    /** Returns a builder over {@code locks}. */
    public static Builder builder(RedisLocks locks) {
        return new Builder(locks);
    }

    /** The SLEEP_RETRY bounds in force (default {@link SleepRetry#DEFAULT}). */
    public SleepRetry sleepRetry() {
        return dispatch.sleepRetry();
    }

    /**
     * Acquires the lock named {@code key}, runs {@code body}, and releases the lock, applying {@code
     * onConflict} when the lock is taken.
     *
     * @return what {@code body} returned
     * @throws LockConflictException when the lock stays taken (at once for THROW, after the retry bounds for
     *     SLEEP_RETRY); it names the lock ({@link LockConflictException#key()} is {@code key}), the attempts,
     *     the time waited and the holder's remaining lease
     * @throws LockLostException when the lock was lost while {@code body} ran (its result is then not
     *     returned: the protected resource may have seen another holder)
     * @throws LockException when interrupted while waiting between tries (the interrupt flag is set again)
     * @throws HandlerFailedException wrapping a checked exception from {@code body}; unchecked ones pass as
     *     they are
     */
    public <T> T withLock(String key, OnConflict.Blocking onConflict, Callable<T> body) {
        Require.notNull("key", key);
        Require.notNull("onConflict", onConflict);
        Require.notNull("body", body);
        DistributedLock lock = locks.get(key);
        dispatch.acquire(lock, key, onConflict, System.nanoTime());
        return runHeld(lock, key, body, dispatch.listener());
    }

    /** Like {@link #withLock(String, OnConflict.Blocking, Callable)} for a body without a result. */
    public void withLock(String key, OnConflict.Blocking onConflict, Runnable body) {
        Require.notNull("body", body);
        withLock(key, onConflict, () -> {
            body.run();
            return null;
        });
    }

    /**
     * Takes one of the {@code limit} permits of {@code key} ({@link RedisLocks#permits(String, int)}: at most
     * {@code limit} holders at once across every process), runs {@code body}, and returns the permit, applying
     * {@code onConflict} when all are taken: THROW at once, SLEEP_RETRY waiting (a permit returned by anyone ends
     * the wait at once) within the {@link SleepRetry} bounds. A limit of 1 is the same exclusion as {@link
     * #withLock(String, OnConflict.Blocking, Callable)}, but on the permits of the name, not its lock.
     *
     * @return what {@code body} returned
     * @throws io.github.deferlock.lock.PermitConflictException when every permit stays taken (a {@link LockConflictException})
     * @throws IllegalArgumentException when {@code limit} is out of range (docs/names.md)
     * @throws LockLostException when the permit was lost while {@code body} ran
     * @throws HandlerFailedException wrapping a checked exception from {@code body}
     */
    public <T> T withPermit(String key, int limit, OnConflict.Blocking onConflict, Callable<T> body) {
        Require.notNull("key", key);
        Require.notNull("onConflict", onConflict);
        Require.notNull("body", body);
        PermitGuard guard = new PermitGuard(locks, key, limit);
        dispatch.acquire(guard, key, onConflict, System.nanoTime());
        return runHeld(guard, key, body, dispatch.listener());
    }

    /** Like {@link #withPermit(String, int, OnConflict.Blocking, Callable)} for a body without a result. */
    public void withPermit(String key, int limit, OnConflict.Blocking onConflict, Runnable body) {
        Require.notNull("body", body);
        withPermit(key, limit, onConflict, () -> {
            body.run();
            return null;
        });
    }

    /**
     * Takes one start from the rate limiter {@code name} ({@link RedisLocks#rateLimiter(String, RateLimit)}: at
     * most {@code limit} starts per interval across every process) and runs {@code body}, applying {@code
     * onConflict} when the limit is reached: THROW at once, SLEEP_RETRY sleeping until the slot the server names
     * opens, within the {@link SleepRetry} bounds. No lock is taken: bodies may overlap.
     *
     * @return what {@code body} returned
     * @throws RateLimitedException when no slot opens within the bounds (a {@link LockConflictException} whose
     *     {@link RateLimitedException#retryAfter()} says when the next one opens)
     * @throws HandlerFailedException wrapping a checked exception from {@code body}
     */
    public <T> T withRateLimit(String name, RateLimit limit, OnConflict.Blocking onConflict, Callable<T> body) {
        Require.notNull("name", name);
        Require.notNull("limit", limit);
        Require.notNull("onConflict", onConflict);
        Require.notNull("body", body);
        RateGuard guard = new RateGuard(locks.rateLimiter(name, limit), new UnlockedGuard(name));
        dispatch.acquire(guard, name, onConflict, System.nanoTime());
        return runHeld(guard, name, body, dispatch.listener());
    }

    /** Like {@link #withRateLimit(String, RateLimit, OnConflict.Blocking, Callable)} for a body without a result. */
    public void withRateLimit(String name, RateLimit limit, OnConflict.Blocking onConflict, Runnable body) {
        Require.notNull("body", body);
        withRateLimit(name, limit, onConflict, () -> {
            body.run();
            return null;
        });
    }

    /** Runs {@code body} with the lock held by this thread and releases it. */
    static <T> T runHeld(DistributedLock lock, String key, Callable<T> body, ConflictListener listener) {
        return runHeld(lock, key, body, listener, result -> false);
    }

    /**
     * Runs {@code body} with the lock held by this thread and releases it, unless {@code keepHeld}, asked with
     * the body's result, says the thread goes on holding it (then it released nothing, and the run counts as
     * processed all the same). A failed body always releases.
     */
    static <T> T runHeld(
            DistributedLock lock,
            String key,
            Callable<T> body,
            ConflictListener listener,
            java.util.function.Predicate<T> keepHeld) {
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
        if (!keepHeld.test(result)) {
            try {
                lock.unlock();
            } catch (LockLostException lost) {
                safe(() -> listener.onLockLost(key, token));
                throw lost;
            }
        }
        safe(() -> listener.onProcessed(key, Duration.ofNanos(System.nanoTime() - held)));
        return result;
    }

    static void unlockAfterFailure(
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
        private Boolean conflictStats;

        private Builder(RedisLocks locks) {
            this.locks = Require.notNull("locks", locks);
        }

        /** The SLEEP_RETRY bounds (default {@link SleepRetry#DEFAULT}). */
        public Builder sleepRetry(SleepRetry retry) {
            sleepRetry = Require.setOnce("sleepRetry", sleepRetry, retry);
            return this;
        }

        /** A listener for acquired, conflict, retried, processed and lost events (default none). */
        public Builder listener(ConflictListener l) {
            listener = Require.setOnce("listener", listener, l);
            return this;
        }

        /**
         * Whether conflicts are counted in Redis for the conflicts view ({@code deferlock conflicts}, the
         * dashboard's Conflicts panel); default true. Counting never fails nor slows conflict handling: counts
         * are kept in memory and sent by a background thread, a few commands per second at most under
         * contention (docs/ops.md, "Conflict stats"). Set false to send nothing.
         *
         * @throws IllegalStateException when already set
         */
        public Builder conflictStats(boolean enabled) {
            conflictStats = Require.setOnce("conflictStats", conflictStats, enabled);
            return this;
        }

        /** Builds the runner. */
        public LockRunner build() {
            return new LockRunner(this);
        }
    }
}
