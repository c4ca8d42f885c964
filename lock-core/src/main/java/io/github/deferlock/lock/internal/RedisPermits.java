package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.PermitConflictException;
import io.github.deferlock.lock.PermitHolder;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;

/** The {@link DistributedPermits} of one name in one engine. Threadsafe; holds no state of its own. */
public final class RedisPermits implements DistributedPermits {
    private final LockEngine engine;
    private final String name;
    private final byte[] key;
    private final String keyString;
    private final int limit;

    /** Creates the permits; validates the name and the limit. */
    public RedisPermits(LockEngine engine, String name, int limit) {
        this.key = engine.lockKey(name);
        this.name = name;
        this.keyString = new String(key, StandardCharsets.UTF_8);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException(
                    "limit must be within [1, " + MAX_LIMIT + "], not " + limit + " (permits '" + name + "')");
        }
        this.limit = limit;
        this.engine = engine;
        engine.checkOpen();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return keyString;
    }

    @Override
    public int limit() {
        return limit;
    }

    /** The lease of a permit taken without an explicit one (the watchdog renews it). */
    public Duration defaultLease() {
        return engine.config().defaultLease();
    }

    @Override
    public Optional<PermitLease> tryAcquire(Duration wait) {
        return acquire(nanos(wait), defaultLease().toMillis(), engine.config().watchdog(), false);
    }

    @Override
    public Optional<PermitLease> tryAcquire(Duration wait, Duration lease) {
        long waitNanos = nanos(wait);
        return acquire(waitNanos, LockConfig.checkLease("lease", lease), false, false);
    }

    @Override
    public PermitLease acquire(Duration wait) {
        return acquire(nanos(wait), defaultLease().toMillis(), engine.config().watchdog(), true)
                .orElseThrow();
    }

    @Override
    public PermitLease acquire(Duration wait, Duration lease) {
        long waitNanos = nanos(wait);
        return acquire(waitNanos, LockConfig.checkLease("lease", lease), false, true)
                .orElseThrow();
    }

    @Override
    public <T> T withPermit(Duration wait, Callable<T> body) {
        Require.notNull("body", body);
        PermitLease permit = acquire(wait);
        T result;
        try {
            result = body.call();
        } catch (RuntimeException | Error e) {
            releaseAfter(permit, e);
            throw e;
        } catch (Exception e) {
            CompletionException wrapped = new CompletionException(e);
            releaseAfter(permit, wrapped);
            throw wrapped;
        }
        permit.release();
        return result;
    }

    @Override
    public void withPermit(Duration wait, Runnable body) {
        Require.notNull("body", body);
        withPermit(wait, () -> {
            body.run();
            return null;
        });
    }

    private static void releaseAfter(PermitLease permit, Throwable failure) {
        try {
            permit.release();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public List<PermitHolder> holders() {
        return engine.permits().holders(key, name, limit);
    }

    private static long nanos(Duration wait) {
        LockConfig.checkWait(wait);
        return saturatedNanos(wait);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4; // practically forever, and no overflow when added to a clock reading
        }
    }

    private Optional<PermitLease> acquire(long waitNanos, long leaseMillis, boolean renew, boolean orThrow) {
        Outcome outcome;
        try {
            outcome = engine.permits().acquire(name, key, limit, waitNanos, leaseMillis, renew);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while waiting for a permit of '" + name + "'", e);
        }
        if (outcome.hold() == null) {
            if (orThrow) {
                throw new PermitConflictException(
                        name,
                        limit,
                        outcome.attempts(),
                        java.time.Duration.ofNanos(Math.max(0, outcome.waitedNanos())),
                        outcome.holderTtl());
            }
            return Optional.empty();
        }
        return Optional.of((PermitLease) outcome.hold());
    }

    @Override
    public String toString() {
        return "DistributedPermits[" + keyString + ", limit=" + limit + "]";
    }
}
