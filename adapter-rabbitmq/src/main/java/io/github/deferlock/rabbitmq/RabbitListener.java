package io.github.deferlock.rabbitmq;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;

/**
 * Hears what a {@link RabbitConsumer} does with messages, for logs and metrics; lock events go to the {@link
 * io.github.deferlock.conflict.ConflictListener} of the handler. Every method has a no-op default, is called on
 * the thread that did the work, must be fast and must not throw (an exception is logged and ignored).
 * Implementations must be threadsafe. {@code messageId} is the AMQP {@code message-id} property, or the delivery
 * tag when the message has none.
 */
public interface RabbitListener {

    /** {@code handle} returned {@code outcome} after {@code took}; called <b>before</b> the {@code basic.ack}. */
    default void onHandled(String messageId, Outcome outcome, Duration took) {}

    /** The message was acknowledged. */
    default void onAcked(String messageId) {}

    /** {@code handle} threw on attempt {@code attempt}; the message is published again or dead-lettered. */
    default void onFailed(String messageId, int attempt, Throwable error) {}

    /** The message was published to the dead-letter queue with {@code reason} and acknowledged. */
    default void onDeadLettered(String messageId, String reason) {}
}
