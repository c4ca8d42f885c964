package io.github.deferlock.kafka.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records to a consumer's dead-letter topic: same key, value and headers, plus the reason and the source,
 * through a producer with acks=all built from the producer settings of the consumer's config. Threadsafe.
 */
public final class DeadLetterTopic implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterTopic.class);
    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private final String topic;
    private final String reasonHeader;
    private final String sourceHeader;
    private final KafkaProducer<byte[], byte[]> producer;

    /** A writer to {@code topic} with the producer settings found in {@code config}. */
    public DeadLetterTopic(Map<String, Object> config, String topic, String reasonHeader, String sourceHeader) {
        this.topic = topic;
        this.reasonHeader = reasonHeader;
        this.sourceHeader = sourceHeader;
        this.producer = new KafkaProducer<>(producerConfig(config));
    }

    /** The producer settings of {@code config}, with byte-array serializers, acks=all and one request in flight. */
    static Map<String, Object> producerConfig(Map<String, Object> config) {
        Map<String, Object> out = new HashMap<>();
        for (Map.Entry<String, Object> e : config.entrySet()) {
            if (ProducerConfig.configNames().contains(e.getKey())) {
                out.put(e.getKey(), e.getValue());
            }
        }
        out.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        out.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        out.put(ProducerConfig.ACKS_CONFIG, "all");
        // dead letters are rare and each is awaited; one request in flight keeps a retried batch (a dead-letter
        // topic created on first use can refuse the first write) from racing a later one
        out.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        if (out.containsKey(ProducerConfig.CLIENT_ID_CONFIG)) {
            out.put(ProducerConfig.CLIENT_ID_CONFIG, out.get(ProducerConfig.CLIENT_ID_CONFIG) + "-dead");
        }
        return out;
    }

    /**
     * Writes {@code r} with {@code reason} and waits for the broker's ack, trying again with a backoff (100 ms
     * doubling to 5 s) while {@code keepGoing} holds.
     *
     * @return true when written; false when it gave up (the record is then not done)
     */
    public boolean write(ConsumerRecord<byte[], byte[]> r, String id, String reason, BooleanSupplier keepGoing) {
        ProducerRecord<byte[], byte[]> copy = new ProducerRecord<>(topic, null, r.key(), r.value());
        r.headers().forEach(h -> copy.headers().add(h));
        copy.headers().add(reasonHeader, reason.getBytes(StandardCharsets.UTF_8));
        copy.headers().add(sourceHeader, id.getBytes(StandardCharsets.UTF_8));
        long backoff = MIN_BACKOFF_MILLIS;
        while (true) {
            try {
                producer.send(copy).get(30, TimeUnit.SECONDS);
                LOG.warn("record {} dead-lettered to '{}': {}", id, topic, reason);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                LOG.warn("cannot dead-letter {} to '{}' yet: {}", id, topic, e.toString());
                if (!keepGoing.getAsBoolean()) {
                    return false;
                }
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
