package io.github.deferlock.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.QpidBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Issue 26: a Redis outage is waited out, never dead-letters a message and costs it no attempt. Redis is cut off
 * by a {@link FaultProxy} that refuses connections (as a host that is down) while messages arrive.
 */
@ExtendWith(RedisExtension.class)
final class RedisOutageIT {
    private static QpidBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = QpidBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void redisUnreachableFor4s_coldMessagesWait_andNoneIsDeadLettered(RedisServer server) throws Exception {
        String q = "q-" + UUID.randomUUID();
        try (FaultProxy proxy = FaultProxy.to(server);
                Fixture f = new Fixture(proxy.hostAndPort(), Duration.ZERO).withDeferralWorker();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel();
                RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, f.handler)
                        .concurrency(4)
                        .listener(f.recorder)
                        .build()
                        .start()) {
            RabbitProducer producer = new RabbitProducer(ch, q);
            proxy.refuse();
            for (int i = 0; i < 20; i++) {
                producer.publish(new Order("m" + i, "k" + i));
            }
            // the outage lasts 4 s while the messages arrive: long enough for the old immediate republish to
            // spend every attempt of most of them
            await().atMost(Duration.ofSeconds(30)).until(() -> f.recorder.redisWaits.get() >= 4);
            Thread.sleep(4_000);
            proxy.heal();
            await().atMost(Duration.ofSeconds(120)).until(() -> f.handledIds() == 20);
            await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(q) == 0);
            assertThat(ch.messageCount(c.deadLetterQueue())).isZero();
            assertThat(f.recorder.deadLettered).hasValue(0);
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void deferralStoreUnreachableFor8s_hotMessagesWait_andNoneIsDeadLettered(RedisServer server) throws Exception {
        String q = "q-" + UUID.randomUUID();
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient direct = Fixture.pooled(server.hostAndPort());
                RedisClient viaProxy = Fixture.pooled(proxy.hostAndPort());
                RedisLocks locks = RedisLocks.builder(direct).keyPrefix("t:").build();
                RedisLocks holderLocks =
                        RedisLocks.builder(direct).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(viaProxy, "deferred")
                        .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500), 2.0))
                        .build();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            ConflictAwareHandler<Order> handler = ConflictAwareHandler.builder("orders", Order.class, locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> direct.hincrBy(Fixture.HANDLED, o.id(), 1))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(2);
            Fixture.Recorder recorder = new Fixture.Recorder();
            DistributedLock hot = holderLocks.get("order:hot");
            assertThat(hot.tryLock()).isTrue();
            try (RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, handler)
                    .concurrency(4)
                    .listener(recorder)
                    .build()
                    .start()) {
                RabbitProducer producer = new RabbitProducer(ch, q);
                proxy.refuse();
                for (int i = 0; i < 10; i++) {
                    producer.publish(new Order("h" + i, "hot"));
                }
                // the deferral store is unreachable for 8 s; the locks answer (the old code spent all five attempts of
                // a message in about 6 s and dead-lettered it)
                await().atMost(Duration.ofSeconds(30)).until(() -> recorder.redisWaits.get() >= 4);
                Thread.sleep(8_000);
                proxy.heal();
                await().atMost(Duration.ofSeconds(120)).until(() -> recorder.deferred.get() == 10);
                hot.unlock();
                await().atMost(Duration.ofSeconds(120)).until(() -> direct.hlen(Fixture.HANDLED) == 10);
                assertThat(ch.messageCount(c.deadLetterQueue())).isZero();
                assertThat(recorder.deadLettered).hasValue(0);
            }
        }
    }
}
