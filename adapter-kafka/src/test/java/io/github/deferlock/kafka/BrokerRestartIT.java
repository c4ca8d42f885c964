package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka broker (its own, started in this JVM) stops and starts again on the same port with the same log while
 * a consumer runs: the consumer goes on without being rebuilt, and every record is handled once.
 */
@ExtendWith(RedisExtension.class)
final class BrokerRestartIT {

    @Test
    void brokerRestartedMidRun_consumerRecoversWithoutBeingRebuilt_andLosesNothing(RedisServer server) {
        int records = 1_000;
        String t = "restart";
        try (KafkaBroker broker = KafkaBroker.start();
                Fixture f = new Fixture(server.hostAndPort(), Duration.ofMillis(2)).withDeferralWorker()) {
            broker.createTopic(t, 4);
            send(broker, t, 0, records / 2);
            // a small window (at most 40 + 20 records fetched and not done), so the restart cuts into the fetching
            Map<String, Object> config = new HashMap<>(broker.consumerConfig(t));
            config.put("max.poll.records", 20);
            try (TopicConsumer<Order> c = TopicConsumer.builder(config, t, Order.class, f.handler)
                    .concurrency(4)
                    .maxInFlight(40)
                    .commitInterval(Duration.ofMillis(200))
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.handledIds() >= records / 5);
                int handledAtRestart = f.recorder.processed.get();
                long t0 = System.nanoTime();
                broker.restart();
                long restartMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
                send(broker, t, records / 2, records); // new records arrive after it
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> f.handledIds() == records
                                && f.deferralsLeft() == 0
                                && broker.committed(t, t) == records);
                assertThat(c.isRunning()).isTrue();
                assertThat(f.recorder.processed.get()).isGreaterThan(handledAtRestart);
                System.out.printf(
                        "kafka broker restart (%d ms, at %d handled): %d records, %d handled twice, %d duplicates"
                                + " skipped%n",
                        restartMillis, handledAtRestart, records, f.duplicates().size(), f.recorder.duplicates.get());
                assertThat(f.duplicates()).isEmpty();
            }
        }
    }

    private static void send(KafkaBroker broker, String topic, int from, int to) {
        try (KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
            for (int i = from; i < to; i++) {
                String key = "k" + (i % 100);
                kp.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), Fixture.json("m" + i, key)));
            }
            kp.flush();
        }
    }
}
