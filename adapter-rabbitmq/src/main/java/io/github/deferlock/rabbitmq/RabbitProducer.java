package io.github.deferlock.rabbitmq;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.github.deferlock.consumer.internal.PayloadWriter;
import io.github.deferlock.redis.internal.Require;
import java.io.IOException;
import java.util.UUID;

/**
 * Publishes messages as JSON, persistent, to a queue through the default exchange, in the shape {@link
 * RabbitConsumer} reads; each gets a random {@code message-id}. It publishes on the caller's channel, which is not
 * threadsafe: use one producer per thread, or your own publishing code with the same body format.
 */
public final class RabbitProducer {

    private final Channel channel;
    private final String queue;
    private final ObjectMapper mapper;

    /** A producer to {@code queue} on {@code channel} with a plain {@code new ObjectMapper()}. */
    public RabbitProducer(Channel channel, String queue) {
        this(channel, queue, new ObjectMapper());
    }

    /** A producer to {@code queue} on {@code channel} writing JSON with {@code mapper}. */
    public RabbitProducer(Channel channel, String queue, ObjectMapper mapper) {
        this.channel = Require.notNull("channel", channel);
        this.queue = Require.notEmpty("queue", queue);
        this.mapper = Require.notNull("mapper", mapper);
    }

    /**
     * Publishes {@code message} (delivery mode 2, content type application/json) with a new random {@code
     * message-id}.
     *
     * @return the {@code message-id} it set: the id the consumer's listener reports for this message
     * @throws IllegalArgumentException when the message cannot be written as JSON
     * @throws IOException when the channel fails
     */
    public String publish(Object message) throws IOException {
        byte[] body = PayloadWriter.write(mapper, message);
        String id = UUID.randomUUID().toString();
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(2)
                .messageId(id)
                .build();
        channel.basicPublish("", queue, props, body);
        return id;
    }
}
