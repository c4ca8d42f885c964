package io.github.deferlock.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.testing.KeyOrderProbe;
import io.github.deferlock.testing.QpidBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 26: by default (the order key is the handler's lock key) and with {@code concurrency(8)}, the messages of one key run one at a time in
 * queue order, a message retried in place holding back the later messages of its key, while different keys run
 * in parallel; against Qpid Broker-J.
 */
@ExtendWith(RedisExtension.class)
final class KeyOrderIT {
    private static final int KEYS = 100;
    private static final int PER_KEY = 20;

    @Test
    void messagesOfOneKey_runInQueueOrder_andKeysRunInParallel(RedisServer server) throws Exception {
        KeyOrderProbe probe = new KeyOrderProbe();
        try (QpidBroker broker = QpidBroker.start();
                Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            // four keys fail their 4th message once: the retry must hold back the key's later messages
            ConflictAwareHandler<Order> ordered = ConflictAwareHandler.builder("ordered", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .handler(o -> probe.handle(o.id(), 2, o.id().matches("k(0|25|50|75)-3")))
                    .onConflict(OnConflict.THROW)
                    .build();
            ch.queueDeclare("ordered", false, false, false, null); // not durable: the broker stores nothing
            RabbitProducer producer = new RabbitProducer(ch, "ordered");
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (int k = 0; k < KEYS; k++) {
                    producer.publish(new Order("k" + k + "-" + seq, "k" + k));
                }
            }
            try (RabbitConsumer<Order> c = RabbitConsumer.builder(
                            Fixture.amqp(broker.port()), "ordered", Order.class, ordered)
                    .concurrency(8)
                    .retryBackoff(Backoff.fixed(Duration.ofSeconds(1)))
                    .declareQueues(false)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> probe.completed() == KEYS * PER_KEY && ch.messageCount("ordered") == 0);
                assertThat(c.isRunning()).isTrue();
            }
            System.out.println("KeyOrderIT (rabbitmq, concurrency 8, " + KEYS + " keys): " + probe);
            assertThat(probe.failedFirstRuns()).isEqualTo(4);
            probe.assertKeysInOrderAndParallel(4); // of 8 handler threads
        }
    }
}
