package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.Durations;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.Optional;

/**
 * A rate limiter had no slot within the caller's wait. A {@link LockConflictException}, so whatever routes a
 * conflict (THROW, SLEEP_RETRY, DEFER) routes this one too: {@link #key()} is the limiter's name, {@link
 * #holderTtl()} the {@link #retryAfter()}. Immutable.
 */
public class RateLimitedException extends LockConflictException {
    private static final long serialVersionUID = 1L;

    private final RateLimit limit;
    private final Duration retryAfter;

    /**
     * Creates the exception.
     *
     * @param key the limiter's name as given to {@link RedisLocks#rateLimiter(String, RateLimit)}
     * @param limit the limit that was reached
     * @param attempts how many limiter requests reached Redis
     * @param waited how long the caller waited in total
     * @param retryAfter how long until a slot opens, as the server last computed it
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code attempts} or a duration is negative
     */
    public RateLimitedException(String key, RateLimit limit, int attempts, Duration waited, Duration retryAfter) {
        super(key, attempts, waited, Optional.of(Require.notNegative("retryAfter", retryAfter)));
        this.limit = Require.notNull("limit", limit);
        this.retryAfter = retryAfter;
    }

    @Override
    public String getMessage() {
        return "rate limiter '" + key() + "' has no slot (limit: " + limit + ", attempts: " + attempts() + ", waited: "
                + Durations.format(waited()) + ", retry after: " + Durations.format(retryAfter) + ")";
    }

    /** The limit that was reached. */
    public RateLimit limit() {
        return limit;
    }

    /** How long until a slot opens, as the server last computed it. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
