package io.github.deferlock.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.consumer.contract.AdapterContract;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractMessage;
import io.github.deferlock.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The adapter contract on Kafka: a KRaft broker in this JVM, a topic of 8 partitions keyed by the message key,
 * consumers with 4 handler threads ({@code deferlock.contract.kafka.concurrency}): Kafka keeps a key's order at any
 * concurrency (a partition's records run in per-key lanes).
 */
final class KafkaContractIT extends AdapterContract {
    private static final int PARTITIONS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Override
    protected String adapter() {
        return "kafka";
    }

    @Override
    protected Class<? extends ConsumerStarter> starter() {
        return KafkaStarter.class;
    }

    @Override
    protected int concurrency() {
        return Integer.getInteger("deferlock.contract.kafka.concurrency", 4);
    }

    @Override
    protected List<String> openChannel(String name) {
        broker.createTopic(name, PARTITIONS);
        broker.createTopic(name + ".dead", 1);
        return List.of(broker.bootstrap(), name, name + "-group");
    }

    @Override
    protected void produce(List<String> args, List<ContractMessage> messages) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Fixture.producer(args.get(0))) {
            for (ContractMessage m : messages) {
                p.send(new ProducerRecord<>(
                        args.get(1), m.key().getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(m)));
            }
            p.flush();
        }
    }

    @Override
    protected void restartBroker() {
        broker.restart();
    }

    @Override
    protected long deadLetters(List<String> args) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", args.get(0)), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(args.get(1) + ".dead")
                    .forEach(pi -> tps.add(new TopicPartition(pi.topic(), pi.partition())));
            long end = c.endOffsets(tps).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            long start = c.beginningOffsets(tps).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            return end - start;
        }
    }

    @Override
    protected boolean settled(List<String> args, long total) {
        return broker.committed(args.get(2), args.get(1)) == total;
    }
}
