package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class LockRunnerIT {

    private RedisClient otherClient;
    private RedisLocks mine;
    private RedisLocks other;

    @BeforeEach
    void setUp(RedisServer server, RedisClient redis) {
        mine = RedisLocks.builder(redis).keyPrefix("t:").build();
        otherClient = server.newClient();
        other = RedisLocks.builder(otherClient).keyPrefix("t:").build();
    }

    @AfterEach
    void tearDown() {
        mine.close();
        other.close();
        otherClient.close();
    }

    /** Holds {@code key} from another "service" on a separate thread until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(String key, Duration lease) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            DistributedLock lock = other.get(key);
            lock.tryLock(Duration.ZERO, lease);
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
        });
        t.setDaemon(true);
        t.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void throw_raisesAtOnceWithKeyAttemptsAndHolderTtl(RedisClient redis) throws Exception {
        CountDownLatch release = holdElsewhere("order:1", Duration.ofSeconds(30));
        LockRunner runner = LockRunner.builder(mine).build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.withLock("order:1", OnConflict.THROW, () -> "never"))
                .isInstanceOfSatisfying(LockConflictException.class, e -> {
                    assertThat(e.key()).contains("order:1");
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.waited()).isLessThan(Duration.ofSeconds(1));
                    assertThat(e.holderTtl()).hasValueSatisfying(ttl -> assertThat(ttl)
                            .isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30)));
                });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        release.countDown();
        // the lock key is gone; the fencing counter and the short-lived release record stay
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.keys("t:*order:1*").stream()
                .noneMatch(k -> !k.endsWith(":fence") && !k.endsWith(":last-release")));
    }

    @Test
    void throw_whenFree_runsBodyAndLeavesNoLockKey(RedisClient redis) {
        LockRunner runner = LockRunner.builder(mine).build();
        String result = runner.withLock("order:2", OnConflict.THROW, () -> "done");
        assertThat(result).isEqualTo("done");
        // the lock key is gone; the fencing counter, the short-lived release record and the prefix's registry
        // entry (docs/names.md) stay
        assertThat(redis.keys("t:*").stream()
                        .filter(k -> !k.endsWith(":fence") && !k.endsWith(":last-release") && !k.equals("t:registry")))
                .isEmpty();
    }

    @Test
    void sleepRetry_succeedsWhenHolderReleasesWithinBudget() throws Exception {
        CountDownLatch release = holdElsewhere("order:3", Duration.ofSeconds(30));
        ConflictStats stats = new ConflictStats();
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(20)), 1000, Duration.ofSeconds(10)))
                .listener(stats)
                .build();
        CompletableFuture<String> result =
                CompletableFuture.supplyAsync(() -> runner.withLock("order:3", OnConflict.SLEEP_RETRY, () -> "got it"));
        await().atMost(Duration.ofSeconds(10)).until(() -> stats.retries() >= 2);
        release.countDown();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("got it");
        assertThat(stats.conflicts()).isGreaterThanOrEqualTo(2);
        assertThat(stats.acquired()).isEqualTo(1);
    }

    @Test
    void sleepRetry_givesUpWithinMaxWait_whenHolderNeverReleases() throws Exception {
        holdElsewhere("order:4", Duration.ofSeconds(60));
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(50)), 1_000_000, Duration.ofMillis(600)))
                .build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.withLock("order:4", OnConflict.SLEEP_RETRY, () -> "never"))
                .isInstanceOfSatisfying(LockConflictException.class, e -> {
                    assertThat(e.attempts()).isGreaterThan(5);
                    assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(500));
                });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isBetween(Duration.ofMillis(550), Duration.ofMillis(600 + 1500));
    }

    @Test
    void sleepRetry_givesUpAfterMaxAttempts() throws Exception {
        holdElsewhere("order:5", Duration.ofSeconds(60));
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(1)), 3, Duration.ofSeconds(30)))
                .build();
        assertThatThrownBy(() -> runner.withLock("order:5", OnConflict.SLEEP_RETRY, () -> "never"))
                .isInstanceOfSatisfying(LockConflictException.class, e -> assertThat(e.attempts())
                        .isEqualTo(3));
    }

    @Test
    void sleepRetry_interruptStopsAndRestoresTheFlag() throws Exception {
        holdElsewhere("order:6", Duration.ofSeconds(60));
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(100)), 1_000_000, Duration.ofMinutes(5)))
                .build();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                runner.withLock("order:6", OnConflict.SLEEP_RETRY, () -> "never");
            } catch (Throwable e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> t.getState() == Thread.State.TIMED_WAITING);
        t.interrupt();
        t.join(5000);
        assertThat(t.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(LockException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(flag.get()).isTrue();
    }

    @Test
    void defer_isRefusedByThePlainForm() {
        LockRunner runner = LockRunner.builder(mine).build();
        assertThatThrownBy(() -> runner.withLock("k", OnConflict.DEFER, () -> 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ConflictAwareHandler");
    }

    @Test
    void checkedExceptionFromBody_isWrapped_andLockReleased(RedisClient redis) {
        LockRunner runner = LockRunner.builder(mine).build();
        assertThatThrownBy(() -> runner.withLock("order:7", OnConflict.THROW, () -> {
                    throw new IOException("disk full");
                }))
                .isInstanceOf(HandlerFailedException.class)
                .hasCauseInstanceOf(IOException.class)
                .hasMessageContaining("order:7");
        assertThat(runner.withLock("order:7", OnConflict.THROW, () -> "again")).isEqualTo("again");
    }

    @Test
    void sleepRetry_rejectsBadBounds() {
        Backoff b = Backoff.fixed(Duration.ofMillis(1));
        assertThatThrownBy(() -> new SleepRetry(b, 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new SleepRetry(b, 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> new SleepRetry(null, 1, Duration.ofSeconds(1)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("backoff");
    }
}
