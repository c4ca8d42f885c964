package io.github.deferlock.streams;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;

/**
 * Hears what a {@link StreamConsumer} does with stream entries, for logs and metrics. Lock events (acquired,
 * conflict, deferred, duplicate skipped) go to the {@link io.github.deferlock.conflict.ConflictListener} of the
 * {@link io.github.deferlock.conflict.ConflictAwareHandler}; this listener adds what only the consumer sees.
 * Every method has a no-op default. Methods are called on the thread that did the work, must be fast and must
 * not throw (an exception thrown here is logged and ignored).
 *
 * <p>Implementations must be threadsafe: one listener serves every consumer thread.
 */
public interface StreamListener {

    /**
     * {@code handle} returned {@code outcome} for entry {@code entryId} after {@code took}. It is called
     * <b>before</b> the entry is acknowledged ({@code XACK}), so a process that dies here gets the entry
     * redelivered.
     */
    default void onHandled(String entryId, Outcome outcome, Duration took) {}

    /** The entry was acknowledged. */
    default void onAcked(String entryId) {}

    /**
     * {@code handle} threw for entry {@code entryId}, delivered {@code deliveries} times; it stays pending and is
     * reclaimed after the claim idle time, unless it reached the delivery limit (then {@link #onDeadLettered}
     * follows).
     */
    default void onFailed(String entryId, long deliveries, Throwable error) {}

    /** Entry {@code entryId} was copied to the dead-letter stream with {@code reason} and acknowledged. */
    default void onDeadLettered(String entryId, String reason) {}

    /** {@code count} pending entries of idle consumers were claimed ({@code XAUTOCLAIM}) by this consumer. */
    default void onReclaimed(int count) {}
}
