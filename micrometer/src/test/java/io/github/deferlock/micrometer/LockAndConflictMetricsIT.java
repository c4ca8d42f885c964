package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class LockAndConflictMetricsIT {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private RedisClient otherClient;
    private RedisLocks other;

    @BeforeEach
    void setUp(RedisServer server) {
        otherClient = server.newClient();
        other = RedisLocks.builder(otherClient).keyPrefix("t:").build();
    }

    @AfterEach
    void tearDown() {
        other.close();
        otherClient.close();
    }

    /** Holds {@code name} from another client on its own thread until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(String name) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            DistributedLock lock = other.get(name);
            lock.tryLock(Duration.ZERO, Duration.ofSeconds(30));
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lock.unlock();
        });
        t.setDaemon(true);
        t.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void lockMeters_countAKnownWorkload(RedisClient redis) throws Exception {
        LockMetrics metrics = new LockMetrics("t:");
        metrics.bindTo(registry);
        try (RedisLocks locks =
                RedisLocks.builder(redis).keyPrefix("t:").listener(metrics).build()) {
            for (int i = 0; i < 7; i++) {
                DistributedLock lock = locks.get("order:" + i);
                assertThat(lock.tryLock()).isTrue();
                Thread.sleep(2);
                lock.unlock();
            }
            CountDownLatch release = holdElsewhere("hot");
            for (int i = 0; i < 3; i++) {
                assertThat(locks.get("hot").tryLock()).isFalse();
            }
            release.countDown();
        }
        assertThat(registry.get("deferlock.lock.acquired")
                        .tag("prefix", "t:")
                        .timer()
                        .count())
                .isEqualTo(7);
        assertThat(registry.get("deferlock.lock.held")
                        .tag("prefix", "t:")
                        .timer()
                        .count())
                .isEqualTo(7);
        assertThat(registry.get("deferlock.lock.held").timer().totalTime(TimeUnit.MILLISECONDS))
                .isGreaterThanOrEqualTo(14);
        assertThat(registry.get("deferlock.lock.acquired").timer().totalTime(TimeUnit.NANOSECONDS))
                .isPositive();
        assertThat(registry.get("deferlock.lock.conflicts").counter().count()).isEqualTo(3);
        assertThat(registry.get("deferlock.lock.lost").counter().count()).isZero();
    }

    @Test
    void conflictMeters_countThrowSleepRetryAndDefer(RedisClient redis) throws Exception {
        ConflictMetrics metrics = new ConflictMetrics("orders");
        metrics.bindTo(registry);
        List<String> ran = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "orders-deferred")
                        .backoff(Backoff.fixed(Duration.ofMillis(100)))
                        .build()) {
            LockRunner runner = LockRunner.builder(locks)
                    .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(10)), 3, Duration.ofSeconds(5)))
                    .listener(metrics)
                    .build();
            for (int i = 0; i < 4; i++) {
                runner.withLock("free:" + i, OnConflict.THROW, () -> ran.add("free"));
            }
            CountDownLatch release = holdElsewhere("hot");
            assertThatThrownBy(() -> runner.withLock("hot", OnConflict.THROW, () -> ran.add("x")))
                    .isInstanceOf(LockConflictException.class);
            assertThatThrownBy(() -> runner.withLock("hot", OnConflict.SLEEP_RETRY, () -> ran.add("x")))
                    .isInstanceOf(LockConflictException.class);
            ConflictAwareHandler<String> handler = ConflictAwareHandler.builder("orders", String.class, locks)
                    .key(m -> "hot")
                    .handler(ran::add)
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .listener(metrics)
                    .build();
            assertThat(handler.handle("deferred-one")).isEqualTo(Outcome.DEFERRED);
            release.countDown();
            deferrals.startWorker(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> ran.contains("deferred-one"));
        }
        assertThat(count("deferlock.conflict.conflicts", "throw")).isEqualTo(1);
        assertThat(count("deferlock.conflict.conflicts", "sleep_retry")).isEqualTo(3);
        assertThat(count("deferlock.conflict.conflicts", "defer")).isGreaterThanOrEqualTo(1);
        assertThat(registry.get("deferlock.conflict.retries").counter().count()).isEqualTo(2);
        // the first deferral, plus one more for each due run that found "hot" still taken
        assertThat(registry.get("deferlock.conflict.deferrals").counter().count())
                .isEqualTo(count("deferlock.conflict.conflicts", "defer"));
        // 4 free keys + the deferred message, once
        assertThat(registry.get("deferlock.conflict.processed").timer().count()).isEqualTo(5);
        assertThat(registry.get("deferlock.conflict.acquired").timer().count()).isEqualTo(5);
        assertThat(registry.get("deferlock.conflict.processed").timer().totalTime(TimeUnit.NANOSECONDS))
                .isPositive();
        assertThat(registry.get("deferlock.conflict.dead.letters").counter().count())
                .isZero();
    }

    private double count(String name, String strategy) {
        return registry.get(name)
                .tag("name", "orders")
                .tag("strategy", strategy)
                .counter()
                .count();
    }

    @Test
    void tenThousandLockNames_keepTheMeterCountFixed(RedisClient redis) {
        LockMetrics lockMetrics = new LockMetrics("t:");
        ConflictMetrics conflictMetrics = new ConflictMetrics("runner");
        lockMetrics.bindTo(registry);
        conflictMetrics.bindTo(registry);
        AtomicReference<Integer> before = new AtomicReference<>();
        try (RedisLocks locks =
                RedisLocks.builder(redis).keyPrefix("t:").listener(lockMetrics).build()) {
            LockRunner runner =
                    LockRunner.builder(locks).listener(conflictMetrics).build();
            for (int i = 0; i < 10_000; i++) {
                runner.withLock("customer:" + i, OnConflict.THROW, () -> {});
                if (i == 9) {
                    before.set(registry.getMeters().size());
                }
            }
        }
        List<Meter> meters = registry.getMeters();
        assertThat(meters).hasSize(before.get());
        assertThat(meters.size()).isLessThan(20);
        assertThat(meters).flatMap(m -> m.getId().getTags()).noneMatch(t -> t.getValue()
                .contains("customer:"));
        assertThat(registry.get("deferlock.lock.acquired").timer().count()).isEqualTo(10_000);
        assertThat(registry.get("deferlock.conflict.processed").timer().count()).isEqualTo(10_000);
    }
}
