package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.RateAttempt;
import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RateLimiter;
import io.github.deferlock.redis.internal.RateLimits;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A {@link RateLimiter} on one name: rate.lua (GCRA, {@code gcra.lua}) on {@code p{e}:rate}. A waiting call
 * sleeps until the slot the server named and asks again, so it makes one script call per slot it competes for,
 * never a busy loop. Threadsafe (immutable; state lives in Redis).
 */
public final class RedisRateLimiter implements RateLimiter {

    /** One grant decision: the script's reply. */
    public record Decision(boolean granted, long retryMicros, long serverMicros) {}

    private final UnifiedJedis redis;
    private final LockClock clock;
    private final String name;
    private final RateLimit limit;
    private final byte[] key;
    private final List<byte[]> keys;
    private final List<byte[]> args;

    /**
     * Creates the limiter; no Redis call.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name breaks the name rule (docs/names.md)
     */
    public RedisRateLimiter(UnifiedJedis redis, String keyPrefix, LockClock clock, String name, RateLimit limit) {
        this.redis = redis;
        this.clock = clock;
        this.name = Require.notNull("name", name);
        this.limit = Require.notNull("limit", limit);
        this.key = Keys.rateKey(Keys.lockKey(keyPrefix, name));
        this.keys = List.of(key);
        this.args =
                List.of(RateLimits.emissionMicrosArg(limit.rate(), limit.interval()), RateLimits.arg(limit.burst()));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return new String(key, StandardCharsets.UTF_8);
    }

    @Override
    public RateLimit limit() {
        return limit;
    }

    /**
     * One script call: whether a start is granted now, the microseconds until the next one is allowed, and the
     * server's time of the decision (tests check windows on it).
     *
     * @throws LockException when Redis fails or the key is not a rate limiter's
     */
    public Decision decide() {
        Object reply;
        try {
            reply = LockLua.RATE.run(redis, keys, args);
        } catch (JedisDataException e) {
            throw new LockException("rate limiter '" + name + "' failed: " + e.getMessage(), e);
        } catch (JedisException e) {
            throw new LockException("rate limiter '" + name + "' cannot reach Redis", e);
        }
        List<?> list = (List<?>) reply;
        return new Decision((Long) list.get(0) == 1L, (Long) list.get(1), (Long) list.get(2));
    }

    @Override
    public RateAttempt tryAcquire() {
        Decision d = decide();
        return d.granted() ? RateAttempt.GRANTED : refused(d.retryMicros());
    }

    @Override
    public RateAttempt tryAcquire(Duration wait) {
        return attempt(nanos(wait)).attempt;
    }

    @Override
    public <T> T withRateLimit(Duration wait, Callable<T> body) {
        Require.notNull("body", body);
        Tries tries = attempt(nanos(wait));
        if (!tries.attempt.granted()) {
            throw new RateLimitedException(
                    name, limit, tries.calls, Duration.ofNanos(tries.waitedNanos), tries.attempt.retryAfter());
        }
        try {
            return body.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /** The wait in nanoseconds, saturated (a wait of centuries is "forever"). */
    private static long nanos(Duration wait) {
        LockConfig.checkWait(wait);
        try {
            return wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private record Tries(RateAttempt attempt, int calls, long waitedNanos) {}

    private Tries attempt(long waitNanos) {
        long start = clock.nanoTime();
        int calls = 0;
        while (true) {
            Decision d = decide();
            calls++;
            if (d.granted()) {
                return new Tries(RateAttempt.GRANTED, calls, clock.nanoTime() - start);
            }
            long elapsed = clock.nanoTime() - start;
            long retryNanos = TimeUnit.MICROSECONDS.toNanos(d.retryMicros());
            // the slot opens after the wait ends: no point in sleeping for it
            if (elapsed + retryNanos > waitNanos) {
                return new Tries(refused(d.retryMicros()), calls, elapsed);
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(retryNanos, 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockException("interrupted while waiting for rate limiter '" + name + "'", e);
            }
        }
    }

    private static RateAttempt refused(long retryMicros) {
        return new RateAttempt(false, Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Math.max(retryMicros, 1))));
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", " + limit + "]";
    }
}
