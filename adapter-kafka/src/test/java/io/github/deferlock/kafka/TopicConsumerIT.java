package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka adapter against a real Kafka broker (one KRaft node) started in this JVM (one for the class; each
 * test uses its own topic and group), with a real redis-server for the locks and deferrals.
 */
@ExtendWith(RedisExtension.class)
final class TopicConsumerIT {
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static String topic(int partitions) {
        String t = "t-" + UUID.randomUUID();
        broker.createTopic(t, partitions);
        return t;
    }

    @Test
    void everyRecord_isHandledOnce_andCommitted(RedisServer server) throws Exception {
        String t = topic(3);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap());
                TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig("g"), t, Order.class, f.handler)
                        .concurrency(4)
                        .listener(f.recorder)
                        .build()
                        .start()) {
            TopicProducer producer = new TopicProducer(kp, t);
            for (int i = 0; i < 300; i++) {
                producer.send("k" + (i % 20), new Order("m" + i, "k" + (i % 20)));
            }
            kp.flush();
            await().atMost(Duration.ofSeconds(60)).until(() -> c.isRunning() && f.handledIds() == 300);
            assertThat(f.duplicates()).isEmpty();
        }
    }
}
