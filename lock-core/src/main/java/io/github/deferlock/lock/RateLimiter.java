package io.github.deferlock.lock;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * A rate limit on one name, shared by every process that uses the name: at most {@link RateLimit#rate()} starts
 * per {@link RateLimit#interval()}, decided in Redis on the server's clock with GCRA (one value per name, which
 * expires when the limiter is idle). Get one from {@link RedisLocks#rateLimiter(String, RateLimit)}.
 *
 * <pre>{@code
 * RateLimiter payments = locks.rateLimiter("payments", RateLimit.of(100, Duration.ofSeconds(1)));
 * if (payments.tryAcquire().granted()) {
 *     callProvider();
 * }
 * }</pre>
 *
 * <p>The limit travels with every call: when processes use one name with different limits, each call is
 * judged by its own caller's limit against the shared state (the newest configuration applies). A call whose
 * reply is lost and that the client resends may take a second slot (docs/locks.md, "Rate limits").
 *
 * <p>Threadsafe.
 */
public interface RateLimiter {

    /** The name as given to {@link RedisLocks#rateLimiter(String, RateLimit)}. */
    String name();

    /** The Redis key of the limiter's state, {@code <prefix>{<name>}:rate} (docs/lock-keys.md). */
    String key();

    /** The limit this limiter applies. */
    RateLimit limit();

    /**
     * Takes one start now if the limit allows it; never waits. One script call.
     *
     * @return granted, or refused with the time until the next slot opens
     * @throws LockException when Redis fails or the key holds a value that is not a rate limiter's
     */
    RateAttempt tryAcquire();

    /**
     * Takes one start, waiting at most {@code wait} for a slot: it sleeps until the slot the server named opens
     * and asks again. A zero wait is {@link #tryAcquire()}.
     *
     * @return granted, or refused with the time until the next slot opens
     * @throws NullPointerException when {@code wait} is null
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails or the thread is interrupted (the flag is restored)
     */
    RateAttempt tryAcquire(Duration wait);

    /**
     * Runs {@code body} once a start is granted, waiting at most {@code wait}.
     *
     * @return what {@code body} returned
     * @throws RateLimitedException when no slot opened within {@code wait}
     * @throws java.util.concurrent.CompletionException wrapping a checked exception {@code body} threw;
     *     unchecked exceptions pass through unchanged
     * @throws LockException when Redis fails or the thread is interrupted (the flag is restored)
     */
    <T> T withRateLimit(Duration wait, Callable<T> body);
}
