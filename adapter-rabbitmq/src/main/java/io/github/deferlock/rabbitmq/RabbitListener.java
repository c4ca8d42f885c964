package io.github.deferlock.rabbitmq;

import io.github.deferlock.consumer.ConsumerListener;

/**
 * Hears what a {@link RabbitConsumer} does with messages, for logs and metrics (the events are {@link
 * ConsumerListener}'s, the same in every adapter); lock events go to the {@link
 * io.github.deferlock.conflict.ConflictListener} of the handler. Every method has a no-op default, is called on
 * the thread that did the work, must be fast and must not throw (an exception is logged and ignored).
 * Implementations must be threadsafe. {@code messageId} is the AMQP {@code message-id} property, or the delivery
 * tag when the message has none.
 */
public interface RabbitListener extends ConsumerListener {}
