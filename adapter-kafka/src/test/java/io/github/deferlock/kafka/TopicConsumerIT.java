package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.contract.HolderMain;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

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

    private static void send(KafkaProducer<byte[], byte[]> kp, String topic, String id, String key) {
        kp.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), Fixture.json(id, key)));
    }

    @Test
    void everyRecord_isHandledOnce_andCommitted(RedisServer server) throws Exception {
        String t = topic(3);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap());
                TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
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
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.committed(t, t) == 300);
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void readmeSnippet_runs(RedisServer server) throws Exception {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kafkaProducer = Fixture.producer(broker.bootstrap())) {
            ConflictAwareHandler<Order> orders = f.handler;
            String bootstrap = broker.bootstrap();
            // README:start
            Map<String, Object> kafkaConfig = Map.of("bootstrap.servers", bootstrap, "group.id", "billing");
            try (TopicConsumer<Order> consumer = TopicConsumer.builder(kafkaConfig, "order-events", Order.class, orders)
                    .concurrency(8) // handler threads; one Kafka key always runs on the same one, in offset order
                    .maxInFlight(1_000) // records waiting or running before the poller pauses its partitions
                    .maxAttempts(5) // a failing record then goes to the topic "order-events.dead"
                    .build()
                    .start()) { // commits each partition up to the first record not yet processed or deferred
                new TopicProducer(kafkaProducer, "order-events").send("42", new Order("e1", "42")); // key, JSON
                // README:end
                await().atMost(Duration.ofSeconds(60)).until(() -> consumer.isRunning() && f.handledIds() == 1);
            }
        }
    }

    @Test
    void aHotKey_neverHoldsBackTheOtherKeysOfItsPartition_andLosesNoneOfItsRecords(RedisServer server)
            throws Exception {
        String t = topic(1);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                RedisClient other = server.newClient();
                RedisLocks holder = RedisLocks.builder(other).keyPrefix("t:").build();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap());
                TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
                        .concurrency(4)
                        .commitInterval(Duration.ofMillis(100))
                        .listener(f.recorder)
                        .build()
                        .start()) {
            DistributedLock hot = holder.get("order:hot");
            assertThat(hot.tryLock(Duration.ZERO, Duration.ofMinutes(2))).isTrue();
            for (int i = 0; i < 100; i++) {
                send(kp, t, "m" + i, i % 5 == 0 ? "hot" : "c" + i);
            }
            kp.flush();
            // the whole partition is committed while every hot record waits for its lock
            await().atMost(Duration.ofSeconds(60)).until(() -> c.isRunning() && broker.committed(t, t) == 100);
            assertThat(f.handledIds()).isEqualTo(80);
            assertThat(f.recorder.deferred.get()).isGreaterThanOrEqualTo(20);
            hot.unlock();
            await().atMost(Duration.ofSeconds(60)).until(() -> f.handledIds() == 100 && f.deferralsLeft() == 0);
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void recordsOfOneKey_thatAreNotDeferred_runInOffsetOrder(RedisServer server) throws Exception {
        String t = topic(2);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
            ConflictAwareHandler<Order> ordered = ConflictAwareHandler.builder("ordered", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> f.redis.rpush("seq:" + o.key(), o.id()))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(f.deferrals)
                    .build();
            for (int i = 0; i < 2_000; i++) {
                send(kp, t, Integer.toString(i), "k" + (i % 10));
            }
            kp.flush();
            try (TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, ordered)
                    .concurrency(4)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> c.isRunning() && f.recorder.processed.get() == 2_000);
            }
            assertThat(f.recorder.deferred.get()).isZero();
            for (int k = 0; k < 10; k++) {
                List<Integer> seq = new ArrayList<>();
                f.redis.lrange("seq:k" + k, 0, -1).forEach(s -> seq.add(Integer.parseInt(s)));
                assertThat(seq).as("key k%d", k).hasSize(200).isSorted();
            }
        }
    }

    @Test
    void poisonAndFailingRecords_goToTheDeadLetterTopic_afterTheirAttempts(RedisServer server) throws Exception {
        String t = topic(1);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
            AtomicInteger badRuns = new AtomicInteger();
            AtomicInteger flakyRuns = new AtomicInteger();
            ConflictAwareHandler<Order> failing = ConflictAwareHandler.builder("failing", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> {
                        if (o.id().equals("bad")) {
                            badRuns.incrementAndGet();
                            throw new IllegalStateException("boom");
                        }
                        if (o.id().equals("flaky") && flakyRuns.incrementAndGet() == 1) {
                            throw new IllegalStateException("once");
                        }
                        f.redis.hincrBy(Fixture.HANDLED, o.id(), 1);
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(f.deferrals)
                    .build();
            try (TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, failing)
                    .maxAttempts(3)
                    .commitInterval(Duration.ofMillis(100))
                    .listener(f.recorder)
                    .build()
                    .start()) {
                kp.send(new ProducerRecord<>(t, "{not json".getBytes(StandardCharsets.UTF_8)));
                send(kp, t, "bad", "k1");
                send(kp, t, "flaky", "k2");
                send(kp, t, "good", "k3");
                kp.flush();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> c.isRunning() && f.handledIds() == 2 && broker.committed(t, t) == 4);
                assertThat(badRuns.get()).isEqualTo(3);
                assertThat(flakyRuns.get()).isEqualTo(2);
                List<ConsumerRecord<byte[], byte[]>> dead = broker.read(c.deadLetterTopic(), 2);
                String reasons = "";
                for (ConsumerRecord<byte[], byte[]> r : dead) {
                    reasons += new String(
                                    r.headers()
                                            .lastHeader(TopicConsumer.REASON_HEADER)
                                            .value(),
                                    StandardCharsets.UTF_8)
                            + "\n";
                }
                assertThat(dead).hasSize(2);
                assertThat(reasons).contains("cannot decode", "failed on attempt 3 of 3", "boom");
            }
        }
    }

    @Test
    void close_letsRunningRecordsFinish_andTheRestIsDeliveredAgain(RedisServer server) throws Exception {
        String t = topic(1);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
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
            for (int i = 0; i < 10; i++) {
                send(kp, t, "m" + i, "k" + i);
            }
            kp.flush();
            TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, slow)
                    .concurrency(2)
                    .build()
                    .start();
            assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(c.close(Duration.ofSeconds(20))).isTrue();
            long handled = f.handledIds();
            assertThat(handled).isGreaterThanOrEqualTo(2).isLessThan(10);
            assertThat(broker.committed(t, t))
                    .as("committed only records that finished")
                    .isBetween(1L, handled);
            try (TopicConsumer<Order> next = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> next.isRunning() && f.handledIds() == 10 && broker.committed(t, t) == 10);
            }
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void aSecondConsumerJoiningMidRun_takesPartitions_andEveryRecordIsHandledOnce(RedisServer server) throws Exception {
        int records = 2_000;
        String t = topic(4);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ofMillis(2)).withDeferralWorker();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
            for (int i = 0; i < records; i++) {
                send(kp, t, "m" + i, "k" + (i % 100));
            }
            kp.flush();
            Fixture.Recorder second = new Fixture.Recorder();
            try (TopicConsumer<Order> a = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
                    .concurrency(4)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.handledIds() >= records / 5);
                try (TopicConsumer<Order> b = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, f.handler)
                        .concurrency(4)
                        .listener(second)
                        .build()
                        .start()) {
                    await().atMost(Duration.ofSeconds(90))
                            .until(() -> a.isRunning()
                                    && b.isRunning()
                                    && f.handledIds() == records
                                    && broker.committed(t, t) == records);
                }
            }
            assertThat(f.recorder.revoked.get())
                    .as("the first consumer gave partitions up")
                    .isPositive();
            assertThat(second.processed.get())
                    .as("the second consumer took some")
                    .isPositive();
            System.out.printf(
                    "kafka rebalance: %d records, %d duplicates skipped by the done marker%n",
                    records, f.recorder.duplicates.get() + second.duplicates.get());
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void tenThousandRecords_threeHotKeysHeldByAnotherJvm_eachHandledOnce_hotOnesAfterRelease(RedisServer server)
            throws Exception {
        int messages = 10_000;
        Set<String> hotKeys = Set.of("k0", "k1", "k2");
        String t = topic(4);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap());
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
            try (TopicConsumer<Order> c = TopicConsumer.builder(broker.consumerConfig(t), t, Order.class, handler)
                    .concurrency(8)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                for (int i = 0; i < messages; i++) {
                    send(kp, t, "m" + i, "k" + (i % 500));
                }
                kp.flush();
                int hot = messages / 500 * hotKeys.size();
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> f.handledIds() == messages - hot && f.recorder.deferred.get() >= hot);
                await().atMost(Duration.ofSeconds(30))
                        .alias("every partition committed to its end while the hot keys are still held")
                        .until(() -> broker.committed(t, t) == messages);
                long coldDone = System.nanoTime();
                f.redis.set("release-now", "1");
                holder.awaitLine("RELEASED", Duration.ofSeconds(30));
                Duration held = Duration.ofNanos(System.nanoTime() - heldSince);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> f.handledIds() == messages && f.deferralsLeft() == 0);
                assertThat(f.duplicates()).as("no message ran twice").isEmpty();
                assertThat(f.redis.smembers("hot-while-held")).isEmpty();
                assertThat(c.isRunning()).isTrue();
                Duration p99 = Fixture.Recorder.p(f.recorder.handleNanos, 0.99);
                System.out.printf(
                        "kafka 10k: cold done in %d ms, all done in %d ms, lock held %d ms, deferrals %d,"
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
    void consumerKilledAfterProcessingBeforeCommit_isRedelivered_andNotRunAgain(RedisServer server) throws Exception {
        killedBeforeCommit(server, Outcome.PROCESSED);
    }

    @Test
    void consumerKilledAfterDeferringBeforeCommit_isRedelivered_notStoredTwice_andRunOnce(RedisServer server)
            throws Exception {
        killedBeforeCommit(server, Outcome.DEFERRED);
    }

    private void killedBeforeCommit(RedisServer server, Outcome stopAt) throws Exception {
        String t = topic(1);
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                RedisClient other = server.newClient();
                RedisLocks holder = RedisLocks.builder(other).keyPrefix("t:").build();
                KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
            DistributedLock hot = holder.get("order:k");
            if (stopAt == Outcome.DEFERRED) {
                assertThat(hot.tryLock(Duration.ZERO, Duration.ofMinutes(2))).isTrue();
            }
            send(kp, t, "m-1", "k");
            kp.flush();
            try (JvmProcess child = JvmProcess.start(
                    ConsumerMain.class, Integer.toString(server.port()), broker.bootstrap(), t, t, stopAt.name())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.redis.exists("reached"));
                child.kill();
            }
            assertThat(broker.committed(t, t)).as("nothing committed").isZero();
            assertThat(f.redis.hget(Fixture.HANDLED, "m-1")).isEqualTo(stopAt == Outcome.PROCESSED ? "1" : null);
            assertThat(f.deferralsLeft()).isEqualTo(stopAt == Outcome.DEFERRED ? 1 : 0);

            f.withDeferralWorker();
            Map<String, Object> config = new HashMap<>(broker.consumerConfig(t));
            try (TopicConsumer<Order> survivor = TopicConsumer.builder(config, t, Order.class, f.handler)
                    .commitInterval(Duration.ofMillis(100))
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60))
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
                        .until(() -> f.redis.hexists(Fixture.HANDLED, "m-1")
                                && f.deferralsLeft() == 0
                                && broker.committed(t, t) == 1);
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-1")).isEqualTo("1");
        }
    }

    // ---- issue 26: a Redis outage never dead-letters ----

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
