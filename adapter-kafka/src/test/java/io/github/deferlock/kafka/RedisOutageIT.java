package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 26: a Redis outage is waited out, never dead-letters a record and costs it no attempt. Redis is cut off
 * by a {@link FaultProxy} that refuses connections (as a host that is down) while records arrive.
 */
@ExtendWith(RedisExtension.class)
final class RedisOutageIT {
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

    @Test
    void redisUnreachableFor5s_recordsWait_andNoneIsDeadLettered(RedisServer server) throws Exception {
        String t = "t-" + UUID.randomUUID();
        broker.createTopic(t, 2);
        try (FaultProxy proxy = FaultProxy.to(server);
                Fixture f = new Fixture(proxy.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap());
                TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
                        .concurrency(4)
                        .listener(f.recorder)
                        .build()
                        .start()) {
            kp.send(new ProducerRecord<>(t, "warm".getBytes(StandardCharsets.UTF_8), Fixture.json("warm", "warm")));
            kp.flush();
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> c.isRunning() && f.handledIds() == 1); // assigned and running
            proxy.refuse();
            for (int i = 0; i < 20; i++) {
                String key = "k" + i;
                kp.send(new ProducerRecord<>(t, key.getBytes(StandardCharsets.UTF_8), Fixture.json("m" + i, key)));
            }
            kp.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> f.recorder.redisWaits.get() >= 4);
            Thread.sleep(5_000); // the outage lasts 5 s while the records arrive
            proxy.heal();
            await().atMost(Duration.ofSeconds(120)).until(() -> f.handledIds() == 21);
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.committed(t, t) == 21);
            assertThat(f.recorder.deadLettered).hasValue(0);
            assertThat(f.duplicates()).isEmpty();
        }
    }
}
