package io.github.deferlock.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.contract.HolderMain;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.QpidBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The RabbitMQ adapter against a real AMQP 0-9-1 broker, Apache Qpid Broker-J, started in this JVM (one for the
 * class; each test uses its own queue), with a real redis-server for the locks and deferrals.
 */
@ExtendWith(RedisExtension.class)
final class RabbitConsumerIT {
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

    private static String queue() {
        return "q-" + UUID.randomUUID();
    }

    private static long depth(Channel ch, String queue) throws Exception {
        return ch.messageCount(queue);
    }

    @Test
    void everyMessage_isHandledOnce_andAcked(RedisServer server) throws Exception {
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel();
                RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, f.handler)
                        .concurrency(4)
                        .listener(f.recorder)
                        .build()
                        .start()) {
            RabbitProducer producer = new RabbitProducer(ch, q);
            for (int i = 0; i < 300; i++) {
                producer.publish(new Order("m" + i, "k" + (i % 20)));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> c.isRunning() && f.handledIds() == 300);
            await().atMost(Duration.ofSeconds(10)).until(() -> depth(ch, q) == 0);
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void readmeSnippet_runs(RedisServer server) throws Exception {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            ConflictAwareHandler<Order> orders = f.handler;
            ConnectionFactory factory = Fixture.amqp(broker.port());
            // README:start
            try (RabbitConsumer<Order> consumer = RabbitConsumer.builder(factory, "order-events", Order.class, orders)
                            .concurrency(8) // handler threads; virtualThreads(true) on Java 21+
                            .prefetch(20) // unacknowledged messages per handler thread: basic.qos 160
                            .orderKey(o -> "order:" + o.key()) // one key's messages one at a time, in queue order
                            .maxAttempts(5) // a failing message then goes to the queue "order-events.dead"
                            .build()
                            .start(); // declares both queues (durable); basic.ack once processed or deferred
                    Connection connection = factory.newConnection();
                    Channel channel = connection.createChannel()) {
                new RabbitProducer(channel, "order-events").publish(new Order("e1", "42")); // JSON, persistent
                // README:end
                await().atMost(Duration.ofSeconds(30)).until(() -> consumer.isRunning() && f.handledIds() == 1);
            }
        }
    }

    @Test
    void poisonAndFailingMessages_goToTheDeadLetterQueue_afterTheirAttempts(RedisServer server) throws Exception {
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            AtomicInteger badRuns = new AtomicInteger();
            AtomicInteger flakyRuns = new AtomicInteger();
            AtomicInteger assertRuns = new AtomicInteger();
            ConflictAwareHandler<Order> failing = ConflictAwareHandler.builder("failing", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> {
                        if (o.id().equals("bad")) {
                            badRuns.incrementAndGet();
                            throw new IllegalStateException("boom");
                        }
                        if (o.id().equals("asserts")) { // an Error is a handler failure too (issue 26 review)
                            assertRuns.incrementAndGet();
                            throw new AssertionError("invariant broken");
                        }
                        if (o.id().equals("flaky") && flakyRuns.incrementAndGet() == 1) {
                            throw new IllegalStateException("once");
                        }
                        f.redis.hincrBy(Fixture.HANDLED, o.id(), 1);
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(f.deferrals)
                    .build();
            try (RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, failing)
                    .maxAttempts(3)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                ch.basicPublish("", q, null, "{not json".getBytes(StandardCharsets.UTF_8));
                RabbitProducer producer = new RabbitProducer(ch, q);
                producer.publish(new Order("bad", "k1"));
                producer.publish(new Order("flaky", "k2"));
                producer.publish(new Order("asserts", "k3"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> c.isRunning() && depth(ch, c.deadLetterQueue()) == 3 && f.handledIds() == 1);
                assertThat(badRuns.get()).isEqualTo(3);
                assertThat(flakyRuns.get()).isEqualTo(2);
                assertThat(assertRuns.get()).isEqualTo(3);
                String reasons = "";
                for (int i = 0; i < 3; i++) {
                    GetResponse r = ch.basicGet(c.deadLetterQueue(), true);
                    reasons += r.getProps().getHeaders().get(RabbitConsumer.REASON_HEADER) + "\n";
                }
                assertThat(reasons).contains("cannot decode", "failed on attempt 3 of 3", "boom", "invariant broken");
            }
        }
    }

    @Test
    void close_letsRunningMessagesFinish_andReturnsTheRest(RedisServer server) throws Exception {
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            CountDownLatch running = new CountDownLatch(2);
            ConflictAwareHandler<Order> slow = ConflictAwareHandler.builder("slow", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> {
                        running.countDown();
                        Thread.sleep(500);
                        f.redis.hincrBy(Fixture.HANDLED, o.id(), 1);
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(f.deferrals)
                    .build();
            RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, slow)
                    .concurrency(2)
                    .prefetch(5)
                    .build()
                    .start();
            RabbitProducer producer = new RabbitProducer(ch, q);
            for (int i = 0; i < 10; i++) {
                producer.publish(new Order("m" + i, "k" + i));
            }
            assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(c.close(Duration.ofSeconds(20))).isTrue();
            long handled = f.handledIds();
            assertThat(handled).isGreaterThanOrEqualTo(2).isLessThan(10);
            await().atMost(Duration.ofSeconds(10)).until(() -> depth(ch, q) == 10 - handled);
        }
    }

    @Test
    void tenThousandMessages_threeHotKeysHeldByAnotherJvm_eachHandledOnce_hotOnesAfterRelease(RedisServer server)
            throws Exception {
        int messages = 10_000;
        Set<String> hotKeys = Set.of("k0", "k1", "k2");
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel();
                JvmProcess holder =
                        JvmProcess.start(HolderMain.class, Integer.toString(server.port()), "k0", "k1", "k2")) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            long heldSince = System.nanoTime();
            ConflictAwareHandler<Order> handler = ConflictAwareHandler.builder("hot", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> {
                        if (hotKeys.contains(o.key()) && !f.redis.exists("released")) {
                            f.redis.sadd("hot-while-held", o.id());
                        }
                        f.redis.hincrBy(Fixture.HANDLED, o.id(), 1);
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(f.deferrals)
                    .build();
            f.deferrals.startWorker(2);
            long t0 = System.nanoTime();
            try (RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, handler)
                    .concurrency(8)
                    .prefetch(20)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                // transient messages (delivery mode 1): the Derby store would make this a test of its disk writes
                for (int i = 0; i < messages; i++) {
                    String json = "{\"id\":\"m" + i + "\",\"key\":\"k" + (i % 500) + "\"}";
                    ch.basicPublish("", q, null, json.getBytes(StandardCharsets.UTF_8));
                }
                int hot = messages / 500 * hotKeys.size();
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> f.handledIds() == messages - hot && f.recorder.deferred.get() >= hot);
                long coldDone = System.nanoTime();
                f.redis.set("release-now", "1");
                holder.awaitLine("RELEASED", Duration.ofSeconds(30));
                Duration held = Duration.ofNanos(System.nanoTime() - heldSince);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> f.handledIds() == messages && f.deferralsLeft() == 0 && depth(ch, q) == 0);
                assertThat(f.duplicates()).as("no message ran twice").isEmpty();
                assertThat(f.redis.smembers("hot-while-held")).isEmpty();
                assertThat(c.isRunning()).isTrue();
                Duration p99 = Fixture.Recorder.p(f.recorder.handleNanos, 0.99);
                System.out.printf(
                        "rabbit 10k: cold done in %d ms, all done in %d ms, lock held %d ms, deferrals %d,"
                                + " handle p50 %.2f ms p99 %.2f ms, DEFERRED handle p99 %.2f ms%n",
                        Duration.ofNanos(coldDone - t0).toMillis(),
                        Duration.ofNanos(System.nanoTime() - t0).toMillis(),
                        held.toMillis(),
                        f.recorder.deferred.get(),
                        Fixture.Recorder.p(f.recorder.handleNanos, 0.5).toNanos() / 1e6,
                        p99.toNanos() / 1e6,
                        Fixture.Recorder.p(f.recorder.deferNanos, 0.99).toNanos() / 1e6);
                assertThat(p99).isLessThan(held.dividedBy(10));
            }
        }
    }

    @Test
    void consumerKilledAfterProcessingBeforeAck_isRedelivered_andNotRunAgain(RedisServer server) throws Exception {
        killedBeforeAck(server, Outcome.PROCESSED);
    }

    @Test
    void consumerKilledAfterDeferringBeforeAck_isRedelivered_notStoredTwice_andRunOnce(RedisServer server)
            throws Exception {
        killedBeforeAck(server, Outcome.DEFERRED);
    }

    private void killedBeforeAck(RedisServer server, Outcome stopAt) throws Exception {
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                RedisClient other = server.newClient();
                RedisLocks holder = RedisLocks.builder(other).keyPrefix("t:").build();
                Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            ch.queueDeclare(q, true, false, false, null);
            DistributedLock hot = holder.get("order:k");
            if (stopAt == Outcome.DEFERRED) {
                assertThat(hot.tryLock(Duration.ZERO, Duration.ofMinutes(2))).isTrue();
            }
            new RabbitProducer(ch, q).publish(new Order("m-1", "k"));
            try (JvmProcess child = JvmProcess.start(
                    ConsumerMain.class,
                    Integer.toString(server.port()),
                    Integer.toString(broker.port()),
                    q,
                    stopAt.name())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.redis.exists("reached"));
                child.kill();
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-1")).isEqualTo(stopAt == Outcome.PROCESSED ? "1" : null);
            assertThat(f.deferralsLeft()).isEqualTo(stopAt == Outcome.DEFERRED ? 1 : 0);

            f.withDeferralWorker();
            try (RabbitConsumer<Order> survivor = RabbitConsumer.builder(
                            Fixture.amqp(broker.port()), q, Order.class, f.handler)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> survivor.isRunning()
                                && f.recorder.processed.get() + f.recorder.deferred.get() + f.recorder.duplicates.get()
                                        == 1);
                if (stopAt == Outcome.DEFERRED) {
                    assertThat(f.recorder.deferred.get()).isEqualTo(1);
                    assertThat(f.deferralsLeft()).as("not stored twice").isEqualTo(1);
                    hot.unlock();
                } else {
                    assertThat(f.recorder.duplicates.get())
                            .as("the done marker recognised it")
                            .isEqualTo(1);
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                f.redis.hexists(Fixture.HANDLED, "m-1") && f.deferralsLeft() == 0 && depth(ch, q) == 0);
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-1")).isEqualTo("1");
        }
    }

    @Test
    void brokerRestartedMidRun_consumersRecoverWithoutBeingRebuilt_andLoseNothing(RedisServer server) throws Exception {
        int messages = 1_000;
        String q = queue();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ofMillis(2)).withDeferralWorker();
                RabbitConsumer<Order> c = RabbitConsumer.builder(Fixture.amqp(broker.port()), q, Order.class, f.handler)
                        .concurrency(4)
                        .listener(f.recorder)
                        .build()
                        .start()) {
            try (Connection conn = Fixture.amqp(broker.port()).newConnection();
                    Channel ch = conn.createChannel()) {
                ch.confirmSelect();
                RabbitProducer producer = new RabbitProducer(ch, q);
                for (int i = 0; i < messages; i++) {
                    producer.publish(new Order("m" + i, "k" + (i % 100)));
                }
                ch.waitForConfirmsOrDie(30_000);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> f.handledIds() >= messages / 5);
            broker.restart();
            int handledAtRestart = f.recorder.processed.get();
            await().atMost(Duration.ofSeconds(120)).until(() -> f.handledIds() == messages && f.deferralsLeft() == 0);
            assertThat(c.isRunning()).isTrue();
            assertThat(f.recorder.processed.get()).isGreaterThan(handledAtRestart);
            System.out.printf(
                    "rabbit broker restart: %d messages, %d handled twice, %d duplicates skipped%n",
                    messages, f.duplicates().size(), f.recorder.duplicates.get());
            assertThat(f.duplicates()).isEmpty();
        }
    }

    // ---- issue 26: a Redis outage never dead-letters ----

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
