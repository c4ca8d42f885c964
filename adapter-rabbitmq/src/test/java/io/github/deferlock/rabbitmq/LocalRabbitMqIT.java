package io.github.deferlock.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adapter against a RabbitMQ server already running on localhost:5672 (guest/guest), when there is one; the
 * test is skipped otherwise. It uses queues of its own with random names and deletes them.
 */
@ExtendWith(RedisExtension.class)
final class LocalRabbitMqIT {

    @Test
    void againstTheLocalRabbitMq_everyMessageOnce_poisonDeadLettered(RedisServer server) throws Exception {
        ConnectionFactory cf = Fixture.amqp(5672);
        cf.setConnectionTimeout(2_000);
        Connection conn;
        try {
            conn = cf.newConnection();
        } catch (Exception e) {
            Assumptions.abort("no RabbitMQ on localhost:5672 (guest/guest): skipped (" + e + ")");
            return;
        }
        String q = "deferlock-it-" + UUID.randomUUID();
        try (conn;
                Channel ch = conn.createChannel();
                Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            try (RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(5672), q, Order.class, f.handler)
                    .concurrency(4)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                RabbitProducer producer = new RabbitProducer(ch, q);
                for (int i = 0; i < 500; i++) {
                    producer.publish(new Order("m" + i, "k" + (i % 50)));
                }
                ch.basicPublish("", q, null, "{not json".getBytes(StandardCharsets.UTF_8));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> c.isRunning()
                                && f.handledIds() == 500
                                && ch.messageCount(c.deadLetterQueue()) == 1
                                && ch.messageCount(q) == 0);
                assertThat(f.duplicates()).isEmpty();
            } finally {
                ch.queueDelete(q);
                ch.queueDelete(q + ".dead");
            }
        }
    }
}
