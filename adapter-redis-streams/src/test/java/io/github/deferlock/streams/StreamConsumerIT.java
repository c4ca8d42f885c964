package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;

@ExtendWith(RedisExtension.class)
final class StreamConsumerIT {

    @Test
    void everyEntry_isHandledOnce_andAcked_evenWhenTheGroupExists(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            f.redis.xgroupCreate("s", "g", new StreamEntryID(0, 0), true); // BUSYGROUP at start is fine
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            for (int i = 0; i < 300; i++) {
                producer.add(new Order("m" + i, "k" + (i % 20)));
            }
            try (StreamConsumer<Order> c =
                    f.consumer("s").concurrency(4).build().start()) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> f.handledIds() == 300 && f.pending("s") == 0 && f.deferralsLeft() == 0);
                assertThat(c.isRunning()).isTrue();
            }
            assertThat(f.duplicates()).isEmpty();
            // each entry is handled exactly once: by the consumer (PROCESSED) or, when a consumer thread of this
            // process held its key at that moment (a stalled machine), by the deferral worker (DEFERRED)
            assertThat(f.recorder.processed.get() + f.recorder.deferred.get()).isEqualTo(300);
            assertThat(f.recorder.duplicates.get()).isZero();
        }
    }

    @Test
    void poisonEntries_goToTheDeadLetterStream_andTheConsumerGoesOn(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker();
                StreamConsumer<Order> c = f.consumer("s").build().start()) {
            f.redis.xadd("s", StreamEntryID.NEW_ENTRY, Map.of(StreamConsumer.PAYLOAD_FIELD, "{not json"));
            f.redis.xadd("s", StreamEntryID.NEW_ENTRY, Map.of("other", "x"));
            StreamProducer.builder(f.redis, "s").build().add(new Order("good", "k"));

            await().atMost(Duration.ofSeconds(20)).until(() -> f.handledIds() == 1 && f.pending("s") == 0);
            List<StreamEntry> dead = f.redis.xrange("s:dead", (StreamEntryID) null, (StreamEntryID) null);
            assertThat(dead).hasSize(2);
            assertThat(dead).anySatisfy(e -> {
                assertThat(e.getFields().get(StreamConsumer.REASON_FIELD)).contains("cannot decode");
                assertThat(e.getFields().get(StreamConsumer.PAYLOAD_FIELD)).isEqualTo("{not json");
            });
            assertThat(dead).anySatisfy(e -> assertThat(e.getFields().get(StreamConsumer.REASON_FIELD))
                    .contains("no 'payload' field"));
            assertThat(c.deadLetterStream()).isEqualTo("s:dead");
        }
    }

    @Test
    void aFailingEntry_isRedeliveredAfterClaimIdle_andDeadLetteredOnItsLastDelivery(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
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
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            producer.add(new Order("bad", "k1"));
            producer.add(new Order("flaky", "k2"));
            try (StreamConsumer<Order> c = StreamConsumer.builder(f.redis, "s", "g", Order.class, failing)
                    .claimIdle(Duration.ofMillis(300))
                    .claimInterval(Duration.ofMillis(100))
                    .maxAttempts(3)
                    .listener(f.recorder)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> c.isRunning() && f.redis.xlen("s:dead") == 1 && f.pending("s") == 0);
            }
            assertThat(badRuns.get()).isEqualTo(3);
            assertThat(flakyRuns.get()).isEqualTo(2);
            assertThat(f.redis.hget(Fixture.HANDLED, "flaky")).isEqualTo("1");
            StreamEntry dead = f.redis
                    .xrange("s:dead", (StreamEntryID) null, (StreamEntryID) null)
                    .get(0);
            assertThat(dead.getFields().get(StreamConsumer.REASON_FIELD)).contains("failed on attempt 3 of 3", "boom");
            // retried in place with the retry backoff (issue 26): one delivery, no reclaim needed
            assertThat(dead.getFields().get(StreamConsumer.DELIVERIES_FIELD)).isEqualTo("1");
        }
    }

    @Test
    void entriesOfADeadConsumer_areReclaimed(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            for (int i = 0; i < 20; i++) {
                producer.add(new Order("m" + i, "k" + i));
            }
            f.redis.xgroupCreate("s", "g", new StreamEntryID(0, 0), true);
            // a consumer that reads and dies without acking
            var got = f.redis.xreadGroup(
                    "g",
                    "ghost",
                    XReadGroupParams.xReadGroupParams().count(15),
                    Map.of("s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            assertThat(got.get(0).getValue()).hasSize(15);
            try (StreamConsumer<Order> c = f.consumer("s")
                    .claimIdle(Duration.ofMillis(500))
                    .claimInterval(Duration.ofMillis(100))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> c.isRunning() && f.handledIds() == 20 && f.pending("s") == 0);
            }
            assertThat(f.recorder.reclaimed.get()).isEqualTo(15);
            assertThat(f.duplicates()).isEmpty();
        }
    }

    @Test
    void aRestartedConsumerOfTheSameName_takesBackItsOwnPendingEntriesAtOnce(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            for (int i = 0; i < 5; i++) {
                producer.add(new Order("m" + i, "k" + i));
            }
            f.redis.xgroupCreate("s", "g", new StreamEntryID(0, 0), true);
            f.redis.xreadGroup(
                    "g",
                    "worker-1",
                    XReadGroupParams.xReadGroupParams().count(5),
                    Map.of("s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            try (StreamConsumer<Order> c =
                    f.consumer("s").consumerName("worker-1").build().start()) { // claimIdle 60 s: no reclaim
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> c.isRunning() && f.handledIds() == 5 && f.pending("s") == 0);
            }
            assertThat(f.recorder.reclaimed.get()).isZero();
        }
    }

    @Test
    void close_letsRunningEntriesFinish_andAcksThem(RedisServer server) throws Exception {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            CountDownLatch running = new CountDownLatch(4);
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
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            for (int i = 0; i < 10; i++) {
                producer.add(new Order("m" + i, "k" + i));
            }
            StreamConsumer<Order> c = StreamConsumer.builder(f.redis, "s", "g", Order.class, slow)
                    .concurrency(4)
                    .consumerName("c1")
                    .build()
                    .start();
            assertThat(running.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(c.close(Duration.ofSeconds(20))).isTrue();
            long handled = f.handledIds();
            assertThat(handled).isGreaterThanOrEqualTo(4).isLessThan(10);
            // the reader read all 10 ahead (per-key lanes: up to 4 per handler thread); what had not started
            // when close() came stays pending, unacknowledged, and is delivered again
            assertThat(f.pending("s")).as("only what was handled is acked").isEqualTo(10 - handled);
            assertThat(f.redis.xlen("s")).isEqualTo(10);
            assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class);
            try (StreamConsumer<Order> again = StreamConsumer.builder(f.redis, "s", "g", Order.class, slow)
                    .concurrency(4)
                    .consumerName("c1")
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> again.isRunning() && f.handledIds() == 10 && f.pending("s") == 0);
            }
            assertThat(f.redis.hvals(Fixture.HANDLED))
                    .as("each entry handled once")
                    .containsOnly("1");
        }
    }

    @Test
    void producer_withMaxLen_keepsTheStreamBounded(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            StreamProducer producer =
                    StreamProducer.builder(f.redis, "s").maxLen(100).build();
            for (int i = 0; i < 2_000; i++) {
                producer.add(new Order("m" + i, "k"));
            }
            assertThat(f.redis.xlen("s")).isBetween(100L, 300L);
            assertThatThrownBy(
                            () -> StreamProducer.builder(f.redis, "s").maxLen(1).maxLen(2))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("maxLen was already set to 1");
        }
    }
}
