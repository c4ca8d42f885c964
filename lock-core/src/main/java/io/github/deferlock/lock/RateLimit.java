package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.RateLimits;
import io.github.deferlock.redis.internal.Require;
import java.io.Serializable;
import java.time.Duration;

/**
 * A rate limit: at most {@code rate} starts per {@code interval}, of which up to {@code burst} may come at once
 * after a quiet spell. Enforced by a {@link RateLimiter} with GCRA on the server's clock: the sustained rate is
 * {@code rate / interval}, and any window of length {@code interval} (half-open) sees at most {@code rate + burst
 * - 1} starts (docs/locks.md, "Rate limits"). Immutable.
 *
 * <p>Limits (docs/names.md): {@code rate} within [1, 1000000]; {@code interval} within [1 ms, 366 days] and at
 * least 1 µs per start; {@code burst} within [1, rate]; default burst max(1, rate / 20).
 *
 * @param rate the starts allowed per interval
 * @param interval the interval
 * @param burst how many starts an idle limiter grants at once
 */
public record RateLimit(int rate, Duration interval, int burst) implements Serializable {

    /**
     * Validates the limit.
     *
     * @throws NullPointerException when {@code interval} is null
     * @throws IllegalArgumentException naming the value when one is out of range
     */
    public RateLimit {
        RateLimits.check(rate, Require.notNull("interval", interval), burst);
    }

    /**
     * {@code rate} starts per {@code interval} with the default burst, max(1, rate / 20).
     *
     * @throws NullPointerException when {@code interval} is null
     * @throws IllegalArgumentException naming the value when one is out of range
     */
    public static RateLimit of(int rate, Duration interval) {
        Require.within("rate", rate, 1, RateLimits.MAX_RATE);
        return new RateLimit(rate, interval, RateLimits.defaultBurst(rate));
    }

    /**
     * This limit with another burst.
     *
     * @throws IllegalArgumentException when {@code burst} is not within [1, rate]
     */
    public RateLimit withBurst(int burst) {
        return new RateLimit(rate, interval, burst);
    }

    /** {@code "200 per 1 s (burst 10)"}. */
    @Override
    public String toString() {
        return RateLimits.describe(rate, interval, burst);
    }
}
