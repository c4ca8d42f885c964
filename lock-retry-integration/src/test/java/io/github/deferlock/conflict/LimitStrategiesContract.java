package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.PermitConflictException;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The three strategies applied to a key's permits and to rate limits (issue 32), through {@link LockRunner} and
 * {@link ConflictAwareHandler}, written once; {@link LimitStrategiesIT} runs it against a standalone server, a
 * three-master cluster and a sentinel group. Two {@code RedisLocks} on two clients stand for two services.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LimitStrategiesContract {

    private static final Duration LONG = Duration.ofSeconds(30);

    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private UnifiedJedis otherClient;
    private RedisLocks mine;
    private RedisLocks other;

    /** Starts the topology under test. */
    abstract RedisDeployment start();

    /** This service's locks (key prefix {@code l:}). */
    final RedisLocks mine() {
        return mine;
    }

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
        otherClient = deployment.newClient();
    }

    @AfterAll
    final void stopDeployment() {
        otherClient.close();
        redis.close();
        deployment.close();
    }

    @BeforeEach
    final void setUp() {
        deployment.flushAll();
        mine = RedisLocks.builder(redis).keyPrefix("l:").build();
        other = RedisLocks.builder(otherClient).keyPrefix("l:").build();
    }

    @AfterEach
    final void tearDown() {
        mine.close();
        other.close();
        deployment.flushAll();
    }

    /** Takes {@code count} of the {@code limit} permits of {@code key} from another "service". */
    private List<PermitLease> holdElsewhere(String key, int limit, int count) {
        List<PermitLease> held = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            held.add(other.permits(key, limit).acquire(Duration.ZERO, LONG));
        }
        return held;
    }

    @Test
    void withPermit_throw_raisesPermitsTakenOnlyWhenEveryPermitIsHeld() {
        LockRunner runner = LockRunner.builder(mine).build();
        List<PermitLease> held = holdElsewhere("tenant:1", 2, 1);
        assertThat(runner.withPermit("tenant:1", 2, OnConflict.THROW, () -> "ran"))
                .isEqualTo("ran");
        held.addAll(holdElsewhere("tenant:1", 2, 1));
        assertThatThrownBy(() -> runner.withPermit("tenant:1", 2, OnConflict.THROW, () -> "never"))
                .isInstanceOfSatisfying(PermitConflictException.class, e -> {
                    assertThat(e.key()).isEqualTo("tenant:1");
                    assertThat(e.limit()).isEqualTo(2);
                    assertThat(e.getMessage()).contains("all 2 permits of 'tenant:1' are held");
                });
        held.forEach(PermitLease::release);
    }

    @Test
    void withPermit_sleepRetry_runsAsSoonAsAPermitIsReturned() throws Exception {
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofSeconds(10)), 1_000, Duration.ofSeconds(20)))
                .build();
        List<PermitLease> held = holdElsewhere("tenant:2", 2, 2);
        long[] returnedAt = new long[1];
        CountDownLatch waiting = new CountDownLatch(1);
        Thread returner = new Thread(() -> {
            try {
                waiting.await();
                Thread.sleep(300); // the caller is in its wait by then
            } catch (InterruptedException e) {
                return;
            }
            returnedAt[0] = System.nanoTime();
            held.get(0).release();
        });
        returner.start();
        waiting.countDown();
        long ranAt = runner.withPermit("tenant:2", 2, OnConflict.SLEEP_RETRY, System::nanoTime);
        returner.join();
        // the backoff's delay is 10 s: only the returned permit can end the wait this soon
        assertThat(Duration.ofNanos(ranAt - returnedAt[0])).isPositive().isLessThan(Duration.ofSeconds(3));
        held.get(1).release();
    }

    @Test
    void withPermit_neverMoreHoldersThanTheLimit_butUpToIt() throws Exception {
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(50)), 10_000, LONG))
                .build();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        runner.withPermit("tenant:3", 3, OnConflict.SLEEP_RETRY, () -> {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.sleep(5);
                            inside.decrementAndGet();
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(most.get()).isLessThanOrEqualTo(3).isGreaterThan(1);
    }

    @Test
    void withRateLimit_throw_raisesRateLimitedWithTheTimeUntilTheNextSlot() {
        LockRunner runner = LockRunner.builder(mine).build();
        RateLimit limit = RateLimit.of(4, Duration.ofSeconds(2)).withBurst(4);
        for (int i = 0; i < 4; i++) {
            runner.withRateLimit("provider:a", limit, OnConflict.THROW, () -> null);
        }
        assertThatThrownBy(() -> runner.withRateLimit("provider:a", limit, OnConflict.THROW, () -> "never"))
                .isInstanceOfSatisfying(RateLimitedException.class, e -> {
                    assertThat(e.key()).isEqualTo("provider:a");
                    assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500));
                });
    }

    @Test
    void withRateLimit_sleepRetry_waitsForTheSlotsInsteadOfFailing() {
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofSeconds(5)), 1_000, LONG))
                .build();
        RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1)).withBurst(1);
        List<Long> starts = new CopyOnWriteArrayList<>();
        long begin = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            runner.withRateLimit("provider:b", limit, OnConflict.SLEEP_RETRY, () -> starts.add(System.nanoTime()));
        }
        // 6 starts at one per 100 ms: at least 5 gaps; and never the backoff's 5 s (the wait is the slot's)
        Duration took = Duration.ofNanos(System.nanoTime() - begin);
        assertThat(starts).hasSize(6);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(450)).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void handler_permits_runsUpToTheLimitAtOnce_andDefersTheRestBehindTheKey() throws Exception {
        Deferrals deferrals = Deferrals.builder(redis, "limits-defer")
                .drainWait(Duration.ofSeconds(2))
                .build();
        CountDownLatch release = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        ConflictAwareHandler<Msg> h = ConflictAwareHandler.builder("permits-h", Msg.class, mine)
                .key(m -> "tenant:" + m.order())
                .messageId(Msg::id)
                .permits(2)
                .handler(m -> {
                    ran.add(m.id());
                    if (m.id().startsWith("slow")) {
                        release.await();
                    }
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Outcome> a = pool.submit(() -> h.handle(new Msg("slow-1", "7")));
            Future<Outcome> b = pool.submit(() -> h.handle(new Msg("slow-2", "7")));
            await().alias("both slow messages run at once under the key's 2 permits")
                    .atMost(LONG)
                    .until(() -> ran.size() == 2);
            assertThat(h.handle(new Msg("third", "7"))).isEqualTo(Outcome.DEFERRED);
            assertThat(h.handle(new Msg("fourth", "7"))).isEqualTo(Outcome.DEFERRED);
            deferrals.startWorker(1);
            release.countDown();
            assertThat(a.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.PROCESSED);
            assertThat(b.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.PROCESSED);
            await().alias("the parked messages run once a permit frees, in their order")
                    .atMost(LONG)
                    .until(() -> ran.size() == 4);
            assertThat(ran.subList(2, 4)).containsExactly("third", "fourth");
        } finally {
            pool.shutdownNow();
            deferrals.close();
        }
    }

    @Test
    void handler_permits_throw_raisesPermitsTakenWhenEveryPermitIsHeld() {
        List<PermitLease> held = holdElsewhere("tenant:9", 2, 2);
        ConflictAwareHandler<Msg> h = ConflictAwareHandler.builder("permits-t", Msg.class, mine)
                .key(m -> "tenant:" + m.order())
                .permits(2)
                .handler(m -> {})
                .build();
        assertThatThrownBy(() -> h.handle(new Msg("b", "9")))
                .isInstanceOfSatisfying(PermitConflictException.class, e -> assertThat(e.limit())
                        .isEqualTo(2));
        held.get(0).release();
        assertThat(h.handle(new Msg("c", "9"))).isEqualTo(Outcome.PROCESSED);
        held.get(1).release();
    }

    @Test
    void handler_rateLimit_defer_runsEveryMessageInOrder_noFasterThanTheLimit() throws Exception {
        Deferrals deferrals = Deferrals.builder(redis, "limits-rate")
                .drainWait(Duration.ofSeconds(2))
                .build();
        List<Long> starts = new CopyOnWriteArrayList<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        ConflictAwareHandler<Msg> h = ConflictAwareHandler.builder("rate-h", Msg.class, mine)
                .key(m -> "acct:" + m.order())
                .messageId(Msg::id)
                .rateLimit(RateLimit.of(5, Duration.ofSeconds(1)).withBurst(2))
                .handler(m -> {
                    starts.add(System.nanoTime());
                    ran.add(m.id());
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        try {
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                outcomes.add(h.handle(new Msg("m" + i, "1")));
            }
            assertThat(outcomes.subList(0, 2)).containsOnly(Outcome.PROCESSED);
            assertThat(outcomes.subList(2, 6)).containsOnly(Outcome.DEFERRED);
            deferrals.startWorker(1);
            await().alias("every deferred message runs once its slot opens")
                    .atMost(LONG)
                    .until(() -> ran.size() == 6);
            assertThat(ran).containsExactly("m0", "m1", "m2", "m3", "m4", "m5");
            // 5 per second with a burst of 2: the 6 starts span at least 3 emission intervals of 200 ms
            assertThat(Duration.ofNanos(starts.get(5) - starts.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(550));
        } finally {
            deferrals.close();
        }
    }
}
