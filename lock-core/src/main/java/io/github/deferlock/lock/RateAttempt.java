package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;

/**
 * What one {@link RateLimiter#tryAcquire()} did: a start was granted, or not, with the time until the next
 * slot opens as the server computed it. Immutable.
 *
 * @param granted whether the caller may start now
 * @param retryAfter zero when granted; otherwise how long until a slot opens (server clock, at the time of the
 *     refusal): a {@code tryAcquire} after that is granted unless others took the slot first
 */
public record RateAttempt(boolean granted, Duration retryAfter) {

    /** A granted attempt. */
    public static final RateAttempt GRANTED = new RateAttempt(true, Duration.ZERO);

    /**
     * Validates the fields.
     *
     * @throws NullPointerException when {@code retryAfter} is null
     * @throws IllegalArgumentException when {@code retryAfter} is negative, or not zero for a grant
     */
    public RateAttempt {
        Require.notNegative("retryAfter", retryAfter);
        if (granted && !retryAfter.isZero()) {
            throw new IllegalArgumentException("retryAfter of a granted attempt must be 0 s, not " + retryAfter);
        }
    }
}
