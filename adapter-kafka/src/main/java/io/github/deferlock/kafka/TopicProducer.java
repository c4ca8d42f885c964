package io.github.deferlock.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.consumer.internal.PayloadWriter;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends messages as JSON values with a UTF-8 key to a topic, in the shape {@link TopicConsumer} reads. The key
 * picks the partition, so records of one key stay in order; use the key your handler locks on. It sends through
 * the caller's {@code Producer<byte[], byte[]>} (threadsafe, like the Kafka producer), which the caller closes.
 *
 * <p>Threadsafe.
 */
public final class TopicProducer {

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final ObjectMapper mapper;

    /** A producer to {@code topic} through {@code producer} with a plain {@code new ObjectMapper()}. */
    public TopicProducer(Producer<byte[], byte[]> producer, String topic) {
        this(producer, topic, new ObjectMapper());
    }

    /** A producer to {@code topic} through {@code producer} writing JSON with {@code mapper}. */
    public TopicProducer(Producer<byte[], byte[]> producer, String topic, ObjectMapper mapper) {
        this.producer = Require.notNull("producer", producer);
        this.topic = Require.notEmpty("topic", topic);
        this.mapper = Require.notNull("mapper", mapper);
    }

    /**
     * Sends {@code message} under {@code key} (null: no key, the producer spreads such records).
     *
     * @return the client's future of the broker's ack
     * @throws IllegalArgumentException when the message cannot be written as JSON
     */
    public Future<RecordMetadata> send(String key, Object message) {
        byte[] value = PayloadWriter.write(mapper, message);
        byte[] k = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        return producer.send(new ProducerRecord<>(topic, k, value));
    }
}
