package io.github.deferlock.conflict;

import java.time.Duration;
import java.util.Optional;

/**
 * Hears what the conflict strategies do, for logs and metrics. Every method has a no-op default, so an
 * implementation overrides only what it needs. Methods are called on the thread that did the work and
 * must be fast and must not throw (an unchecked exception thrown here is logged and ignored; an {@link Error}
 * from {@link #onAcquired} releases the lock before it reaches the caller: no listener failure leaves a lock
 * held).
 *
 * <p>Implementations must be threadsafe: one listener serves every thread.
 */
public interface ConflictListener {

    /** The lock on {@code key} was acquired after {@code waited} (zero when the first try succeeded). */
    default void onAcquired(String key, Duration waited) {}

    /**
     * The lock on {@code key} was taken by someone else; {@code holderTtl} is the holder's remaining lease
     * when Redis reported it.
     */
    default void onConflict(String key, OnConflict strategy, Optional<Duration> holderTtl) {}

    /**
     * SLEEP_RETRY waits up to {@code delay} (with the lock's own wait: a release ends it early) before attempt
     * number {@code nextAttempt} on {@code key}.
     */
    default void onRetried(String key, int nextAttempt, Duration delay) {}

    /** DEFER stored the message for {@code key}; it comes due after {@code delay}; this is deferral number {@code deferrals}. */
    default void onDeferred(String key, int deferrals, Duration delay) {}

    /** A deferred message for {@code key} went to the dead letters for {@code reason}. */
    default void onDeadLettered(String key, String reason) {}

    /** The critical section on {@code key} ran and its lock was released; it held the lock for {@code held}. */
    default void onProcessed(String key, Duration held) {}

    /** The lock on {@code key} (fencing token {@code fencingToken}) was lost while held. */
    default void onLockLost(String key, long fencingToken) {}

    /** A message for {@code key} was skipped because its id was already processed (a redelivery). */
    default void onDuplicateSkipped(String key, String messageId) {}
}
