package io.github.deferlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a bean method under a distributed lock whose name is a SpEL expression over the method's arguments, and
 * applies a conflict strategy when another holder has it.
 *
 * <pre>{@code
 * @WithLock(key = "'order:' + #orderId", onConflict = LockStrategy.SLEEP_RETRY, maxWait = "2s")
 * public Invoice invoice(long orderId) { ... }
 *
 * @WithLock(key = "'order:' + #event.orderId()", onConflict = LockStrategy.DEFER)
 * public LockOutcome<Void> apply(OrderEvent event) { ...; return LockOutcome.done(null); }
 * }</pre>
 *
 * <p><b>THROW</b> raises {@code LockConflictException} at once; <b>SLEEP_RETRY</b> sleeps and retries within
 * {@code deferlock.lock.sleep-retry.*} (or {@link #maxWait()}) and then raises it; both as {@code LockRunner} does.
 *
 * <p><b>DEFER</b> stores the call (the lock name and the arguments as JSON) in the deferral queue ({@code
 * deferlock.deferrals.queue}) and returns at once; when it falls due, whichever instance runs the deferral worker
 * calls the same bean method again, under the same lock, with the decoded arguments (deferred again while the
 * lock stays taken, dead-lettered after {@code deferlock.deferrals.max-deferrals}). So the caller can always
 * tell a deferred call from a completed one, a DEFER method must return either
 * <ul>
 *   <li>{@link LockOutcome}: the body returns {@link LockOutcome#done(Object)}; a deferred call returns a
 *       {@link LockOutcome#isDeferred() deferred} outcome, whose {@link LockOutcome#value()} throws; or
 *   <li>{@code void}: a normal return then means <i>accepted</i> — the body ran, or the call is stored in Redis
 *       and will run later (like {@code @Async void}). Use {@link LockOutcome} when the caller must know which.
 * </ul>
 * Any other return type fails the application's start. The arguments of a DEFER method are encoded on every
 * call (so a call that cannot be stored fails at once, not only on a conflict) and must round-trip through
 * Jackson; the deferred run's result is discarded and its exceptions retry the stored call with the deferral
 * queue's backoff.
 *
 * <p>Key expressions see the arguments by name ({@code #orderId}: compile with {@code -parameters}, as Spring
 * Boot's build plugins do), as {@code #p0}/{@code #a0}, and the bean as {@code #root.target}. The lock is
 * taken through the bean's proxy: a call from inside the same bean ({@code this.apply(...)}) is not locked.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WithLock {

    /** The lock name: a SpEL expression over the arguments that yields a non-empty string. */
    String key();

    /** What to do when the lock is taken (default THROW). */
    LockStrategy onConflict() default LockStrategy.THROW;

    /**
     * SLEEP_RETRY only: the most time spent sleeping between tries, e.g. {@code "2s"}; empty for {@code
     * deferlock.lock.sleep-retry.max-wait}.
     */
    String maxWait() default "";

    /**
     * A fixed lease, e.g. {@code "10s"}: the hold ends after it even if the method still runs (no watchdog).
     * Empty (the default) for a watchdog-renewed hold of {@code deferlock.lock.default-lease}.
     */
    String lease() default "";

    /**
     * DEFER only: the name stored with deferred calls, the same in every instance; empty for {@code
     * SimpleClassName.method} (overloads must set it).
     */
    String name() default "";

    /**
     * How many calls with one key may run at once: each holds one of the key's permits ({@code
     * RedisLocks.permits(key, permits)}: a fenced semaphore across every instance) instead of the key's lock, and
     * the strategy applies when all are taken. Default 1: the key's lock. At most 1,000 (docs/names.md).
     */
    int permits() default 1;
}
