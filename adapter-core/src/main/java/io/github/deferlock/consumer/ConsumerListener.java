package io.github.deferlock.consumer;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;

/**
 * Hears what a conflict-aware consumer does with each message. Every method has an empty default; a listener
 * that throws is logged and ignored, and never changes what happens to the message. Calls come from handler
 * threads, so implementations must be threadsafe and quick.
 *
 * <p>Message ids are the adapter's: a Kafka record's {@code <topic>-<partition>@<offset>}, a stream entry's id, a
 * RabbitMQ message's {@code messageId} (or its delivery tag when it has none).
 */
public interface ConsumerListener {

    /**
     * {@code handle} returned {@code outcome} after {@code took}; called on the handler thread <b>before</b> the
     * message is acknowledged (or its offset may be committed), so a process that dies here gets it again.
     */
    default void onHandled(String messageId, Outcome outcome, Duration took) {}

    /** The message was acknowledged to its broker (RabbitMQ {@code basic.ack}, Streams {@code XACK}). */
    default void onAcked(String messageId) {}

    /**
     * The handler failed on attempt {@code attempt} (the user's code threw, or the lock was lost, or a THROW /
     * SLEEP_RETRY conflict): the message is tried again after the retry backoff, or dead-lettered after its last
     * attempt.
     */
    default void onFailed(String messageId, int attempt, Throwable error) {}

    /**
     * A lock or deferral call for the message could not reach Redis (unreachable, {@code LOADING}, a failover):
     * the consumer waits with a backoff and tries the same message again. This costs the message no attempt and
     * never dead-letters it.
     */
    default void onRedisUnavailable(String messageId, Throwable error) {}

    /** The message was written to the dead-letter target with {@code reason} and acknowledged (or committed). */
    default void onDeadLettered(String messageId, String reason) {}
}
