package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueException;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

@ExtendWith(RedisExtension.class)
final class ConflictAwareHandlerIT {

    private RedisLocks locks;
    private RedisClient otherClient;
    private RedisLocks other;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp(RedisServer server, RedisClient redis) {
        locks = RedisLocks.builder(redis).keyPrefix("t:").build();
        otherClient = server.newClient();
        other = RedisLocks.builder(otherClient).keyPrefix("t:").build();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        locks.close();
        other.close();
        otherClient.close();
    }

    private Deferrals deferrals(RedisClient redis, Backoff backoff, int max) {
        Deferrals d = Deferrals.builder(redis, "deferred")
                .backoff(backoff)
                .maxDeferrals(max)
                .build();
        toClose.add(d);
        return d;
    }

    /** Timed re-deferral ({@link DeferMode#TIMED}), for what only it does: the deferral limit, a retry loop. */
    private Deferrals timedDeferrals(RedisClient redis, Backoff backoff, int max) {
        Deferrals d = Deferrals.builder(redis, "deferred")
                .mode(DeferMode.TIMED)
                .backoff(backoff)
                .maxDeferrals(max)
                .build();
        toClose.add(d);
        return d;
    }

    /** Takes {@code key} from another service with {@code lease} and never releases it, as a crashed holder. */
    private void holdAndAbandon(String key, Duration lease) throws InterruptedException {
        Thread t = new Thread(() -> other.get(key).tryLock(Duration.ZERO, lease));
        t.start();
        t.join();
        DistributedLock probe = locks.get(key);
        assertThat(probe.tryLock()).as("the abandoned hold is in place").isFalse();
    }

    /** Interval of one critical section. */
    private record Interval(long start, long end) {}

    @Test
    void defer_5000MessagesOver50Keys_eachHandledOnceUnderItsLock(RedisClient redis) throws Exception {
        Deferrals deferrals = deferrals(
                redis,
                Backoff.exponential(Duration.ofMillis(2), Duration.ofMillis(100), 2.0)
                        .withJitter(0.2),
                200);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<String, List<Interval>> intervals = new ConcurrentHashMap<>();
        ConflictStats stats = new ConflictStats();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .messageId(Msg::id)
                .handler(m -> {
                    long start = System.nanoTime();
                    runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet();
                    if (m.order().startsWith("hot")) {
                        Thread.sleep(1);
                    }
                    intervals
                            .computeIfAbsent(m.order(), k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(new Interval(start, System.nanoTime()));
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .listener(stats)
                .build();
        deferrals.startWorker(2);

        int total = 5000;
        LinkedBlockingQueue<Msg> source = new LinkedBlockingQueue<>();
        Random random = new Random(7);
        for (int i = 0; i < total; i++) {
            String order = random.nextDouble() < 0.3 ? "hot" + random.nextInt(3) : "cold" + random.nextInt(47);
            source.add(new Msg("m" + i, order));
        }
        Map<Outcome, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        List<Thread> consumers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            Thread t = new Thread(() -> {
                Msg m;
                while ((m = source.poll()) != null) {
                    Outcome o = handler.handle(m);
                    outcomes.computeIfAbsent(o, k -> new AtomicInteger()).incrementAndGet();
                }
            });
            t.start();
            consumers.add(t);
        }
        for (Thread t : consumers) {
            t.join(TimeUnit.MINUTES.toMillis(2));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() == total);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT) == 0);

        assertThat(runs).hasSize(total);
        assertThat(runs.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
        assertThat(outcomes.get(Outcome.DEFERRED))
                .as("some conflicts were deferred")
                .isNotNull();
        assertThat(stats.deferrals()).isPositive();
        assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
        intervals.forEach((order, list) -> {
            List<Interval> sorted = new ArrayList<>(list);
            sorted.sort((a, b) -> Long.compare(a.start(), b.start()));
            for (int i = 1; i < sorted.size(); i++) {
                assertThat(sorted.get(i).start())
                        .as("critical sections of %s overlap", order)
                        .isGreaterThanOrEqualTo(sorted.get(i - 1).end());
            }
        });
    }

    @Test
    void defer_crashedHolder_delaysOnlyItsOwnKey(RedisClient redis) throws Exception {
        Deferrals deferrals = deferrals(redis, Backoff.fixed(Duration.ofMillis(100)), 1000);
        Map<String, Long> doneAt = new ConcurrentHashMap<>();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .handler(m -> doneAt.put(m.id(), System.nanoTime()))
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        deferrals.startWorker(2);
        holdAndAbandon("order:dead", Duration.ofSeconds(3));
        long start = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            assertThat(handler.handle(new Msg("d" + i, "dead"))).isEqualTo(Outcome.DEFERRED);
        }
        for (int i = 0; i < 200; i++) {
            assertThat(handler.handle(new Msg("c" + i, "cold" + (i % 10)))).isEqualTo(Outcome.PROCESSED);
        }
        long coldDone = System.nanoTime();
        assertThat(Duration.ofNanos(coldDone - start))
                .as("the other keys flowed while the dead holder's key was still held")
                .isLessThan(Duration.ofMillis(2500));
        await().atMost(Duration.ofSeconds(20)).until(() -> doneAt.size() == 220);
        for (int i = 0; i < 20; i++) {
            assertThat(doneAt.get("d" + i) - start)
                    .as("the dead key's messages ran only after its lease expired")
                    .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(2500));
        }
    }

    @Test
    void defer_deadLettersAfterTheLimit(RedisClient redis) throws Exception {
        Deferrals deferrals = timedDeferrals(redis, Backoff.fixed(Duration.ofMillis(20)), 3);
        ConflictStats stats = new ConflictStats();
        AtomicInteger ran = new AtomicInteger();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .handler(m -> ran.incrementAndGet())
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .listener(stats)
                .build();
        holdAndAbandon("order:stuck", Duration.ofSeconds(60));
        assertThat(handler.handle(new Msg("s1", "stuck"))).isEqualTo(Outcome.DEFERRED);
        deferrals.startWorker(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> deferrals.queue().size(JobState.DEAD) == 1);
        assertThat(ran.get()).isZero();
        assertThat(stats.deferrals()).isEqualTo(3);
        assertThat(stats.deadLettered()).isEqualTo(1);
        assertThat(deferrals.queue().deadLetters().list(10)).singleElement().satisfies(info -> assertThat(info.reason())
                .startsWith(ConflictAwareHandler.CONFLICT_PERSISTED));
        assertThat(DeadLetterReason.of(
                        deferrals.queue().deadLetters().list(10).get(0).reason()))
                .contains(DeadLetterReason.CONFLICT_PERSISTED);
    }

    @Test
    void defer_enqueueFails_handleThrows_andNothingIsStored(RedisServer server, RedisClient redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build()) {
            // TIMED: the redelivered original may overtake its stored deferral (an ordered DEFER parks it
            // behind it instead: OrderedDeferIT#redeliveredMessage_isParkedOnce_andRunsOnce)
            Deferrals deferrals = Deferrals.builder(viaProxy, "deferred")
                    .mode(DeferMode.TIMED)
                    .backoff(Backoff.fixed(Duration.ofMillis(20)))
                    .build();
            toClose.add(deferrals);
            AtomicInteger ran = new AtomicInteger();
            ConflictStats stats = new ConflictStats();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .messageId(Msg::id)
                    .handler(m -> ran.incrementAndGet())
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .listener(stats)
                    .build();
            holdAndAbandon("order:x", Duration.ofSeconds(2));
            Msg m = new Msg("x1", "x");

            // docs/strategies.md: handle returns DEFERRED only once Redis acknowledged the write; a failed
            // write is the queue's DelayQueueException (the Jedis connection error as its cause), so the
            // caller does not commit its source and the message is redelivered: not lost
            proxy.refuse();
            assertThatThrownBy(() -> handler.handle(m))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("enqueue")
                    .hasMessageContaining("'deferred'")
                    .hasCauseInstanceOf(JedisConnectionException.class);
            proxy.heal();
            assertThat(redis.keys("deferlock:*")).as("nothing half-written").isEmpty();
            assertThat(redis.keys("*deferred*")).isEmpty();
            assertThat(stats.deferrals()).as("no deferral reported").isZero();
            assertThat(ran.get()).isZero();

            // the source redelivers: now the deferral is stored
            assertThat(handler.handle(m)).isEqualTo(Outcome.DEFERRED);
            // the process "dies" before committing the source: it redelivers again; still one deferral
            assertThat(handler.handle(m)).isEqualTo(Outcome.DEFERRED);
            assertThat(deferrals.queue().size(JobState.DUE)).isEqualTo(1);

            // the lock frees up and the redelivered original runs first; the deferred copy is then a duplicate
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.handle(m) == Outcome.PROCESSED);
            deferrals.startWorker(1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(ran.get()).isEqualTo(1);
        }
    }

    @Test
    void jobHandler_plugsIntoADelayQueueWorker_andDefersConflictsOutOfItsQueue(RedisClient redis) throws Exception {
        Deferrals deferrals = deferrals(redis, Backoff.fixed(Duration.ofMillis(50)), 100);
        DelayQueue<Msg> inbox = DelayQueue.builder(redis, "inbox", Msg.class).build();
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .handler(m ->
                        runs.computeIfAbsent(m.id(), k -> new AtomicInteger()).incrementAndGet())
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        deferrals.startWorker(1);
        holdAndAbandon("order:busy", Duration.ofMillis(800));
        DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(inbox, handler.jobHandler())
                .concurrency(2)
                .build()
                .start();
        toClose.add(worker);
        for (int i = 0; i < 10; i++) {
            inbox.enqueue(new Msg("b" + i, "busy"));
            inbox.enqueue(new Msg("f" + i, "free" + i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 20);
        assertThat(runs.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> inbox.size(JobState.DUE) + inbox.size(JobState.IN_FLIGHT) == 0);
        assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
    }

    @Test
    void lockLostWhileHandling_isReportedToCallerAndListener(RedisClient redis) {
        ConflictStats stats = new ConflictStats();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .handler(m -> redis.del("t:{order:lost}")) // the key vanishes while held (a failover, an operator)
                .listener(stats)
                .build();
        assertThatThrownBy(() -> handler.handle(new Msg("l1", "lost"))).isInstanceOf(LockLostException.class);
        assertThat(stats.lost()).isEqualTo(1);
    }

    @Test
    void builder_rejectsDeferWithoutDeferrals_andBadKeys(RedisClient redis) {
        assertThatThrownBy(() -> ConflictAwareHandler.builder("h", Msg.class, locks)
                        .key(m -> "k")
                        .handler(m -> {})
                        .onConflict(OnConflict.DEFER)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'h'")
                .hasMessageContaining("deferrals");
        ConflictAwareHandler<Msg> h = ConflictAwareHandler.builder("h2", Msg.class, locks)
                .key(m -> m.order())
                .handler(m -> {})
                .build();
        assertThatThrownBy(() -> h.handle(new Msg("1", "")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty key");
        assertThatThrownBy(() -> ConflictAwareHandler.builder("h3", Msg.class, locks)
                        .key(m -> "k")
                        .key(m -> "j"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void throwStrategy_inAConsumerLoop_raisesAndRunsNothing() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                .key(m -> "order:" + m.order())
                .handler(m -> ran.incrementAndGet())
                .onConflict(OnConflict.THROW)
                .build();
        holdAndAbandon("order:t", Duration.ofSeconds(30));
        assertThatThrownBy(() -> handler.handle(new Msg("1", "t"))).isInstanceOf(LockConflictException.class);
        assertThat(handler.handle(new Msg("2", "free"))).isEqualTo(Outcome.PROCESSED);
        assertThat(ran.get()).isEqualTo(1);
    }
}
