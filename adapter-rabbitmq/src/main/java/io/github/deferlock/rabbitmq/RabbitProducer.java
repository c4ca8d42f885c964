package io.github.deferlock.rabbitmq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Objects;
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
        this.channel = Objects.requireNonNull(channel, "channel cannot be null");
        this.queue = Objects.requireNonNull(queue, "queue cannot be null");
        this.mapper = Objects.requireNonNull(mapper, "mapper cannot be null");
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
        Objects.requireNonNull(message, "message cannot be null");
        byte[] body;
        try {
            body = mapper.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write " + message.getClass().getName() + " as JSON", e);
        }
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
