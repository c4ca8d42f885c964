package io.github.deferlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits how often a bean method starts, across every instance of the application: at most {@link #rate()}
 * calls per {@link #per()} for each limiter name, a SpEL expression over the arguments (a rate limiter of {@code
 * RedisLocks.rateLimiter}, GCRA on the Redis server's clock; docs/locks.md, "Rate limits").
 *
 * <pre>{@code
 * @RateLimited(key = "'payments'", rate = 100, per = "1s", onConflict = LockStrategy.SLEEP_RETRY)
 * public Receipt charge(Order order) { ... }
 * }</pre>
 *
 * <p>When the limit is reached, <b>THROW</b> raises {@code RateLimitedException} (a {@code
 * LockConflictException} whose {@code retryAfter()} says when the next slot opens) and <b>SLEEP_RETRY</b> sleeps
 * until the slot the server names, within {@code deferlock.lock.sleep-retry.*} (or {@link #maxWait()}), then
 * raises it. <b>DEFER</b> is refused at start: a deferred call needs a lock key to park behind, so use {@code
 * ConflictAwareHandler.Builder.rateLimit} with a lock. No lock is taken: calls may overlap. On a method that
 * also has {@link WithLock}, the start is taken first, then the lock.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {

    /** The limiter's name: a SpEL expression over the arguments that yields a non-empty string. */
    String key();

    /** The most starts per {@link #per()}; at least 1. */
    int rate();

    /** The interval, e.g. {@code "1s"} or {@code "1m"}; default one second. */
    String per() default "1s";

    /** How many starts an idle limiter grants at once; 0 (the default) for max(1, rate / 20). */
    int burst() default 0;

    /** What to do when the limit is reached (default THROW); THROW or SLEEP_RETRY. */
    LockStrategy onConflict() default LockStrategy.THROW;

    /** SLEEP_RETRY only: the most time spent sleeping, e.g. {@code "2s"}; empty for the starter's setting. */
    String maxWait() default "";
}
