package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The permits contract, written once; {@link PermitsIT} runs it against a standalone server, a three-master
 * cluster and a sentinel group. Two {@code RedisLocks} on two clients stand for two processes (each has its own
 * waiter id and channel).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PermitsContract {
    /** Waiting callers run on threads of their own (the common pool may have one thread on 2 cores). */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "permits-test");
        t.setDaemon(true);
        return t;
    });

    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private UnifiedJedis other;

    /** Starts the topology under test. */
    abstract RedisDeployment start();

    final RedisDeployment deployment() {
        return deployment;
    }

    final UnifiedJedis redis() {
        return redis;
    }

    final UnifiedJedis other() {
        return other;
    }

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
        other = deployment.newClient();
    }

    @AfterAll
    final void stopDeployment() {
        other.close();
        redis.close();
        deployment.close();
    }

    @BeforeEach
    @AfterEach
    final void flush() {
        deployment.flushAll();
    }

    @Test
    void acquire_limitThree_threeHoldersLowestSlotsThenConflictThenFreedSlotReused() {
        try (RedisLocks a = RedisLocks.builder(redis).build();
                RedisLocks b = RedisLocks.builder(other).build()) {
            DistributedPermits mine = a.permits("p-basic", 3);
            DistributedPermits theirs = b.permits("p-basic", 3);
            PermitLease p0 = mine.acquire(Duration.ZERO);
            PermitLease p1 = theirs.acquire(Duration.ZERO);
            PermitLease p2 = mine.acquire(Duration.ZERO);
            assertThat(List.of(p0.slot(), p1.slot(), p2.slot())).containsExactly(0, 1, 2);
            assertThat(p1.fencingToken()).isGreaterThan(p0.fencingToken());
            assertThat(p2.fencingToken()).isGreaterThan(p1.fencingToken());
            assertThat(theirs.tryAcquire(Duration.ZERO)).isEmpty();
            assertThatThrownBy(() -> theirs.acquire(Duration.ofMillis(50)))
                    .isInstanceOf(LockConflictException.class)
                    .hasMessageContaining("all 3 permits of 'p-basic' are held")
                    .satisfies(
                            e -> assertThat(((LockConflictException) e).key()).isEqualTo("p-basic"))
                    .satisfies(e ->
                            assertThat(((LockConflictException) e).attempts()).isGreaterThanOrEqualTo(1));
            assertThat(mine.holders())
                    .extracting(PermitHolder::slot, PermitHolder::fencingToken)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(0, p0.fencingToken()),
                            org.assertj.core.groups.Tuple.tuple(1, p1.fencingToken()),
                            org.assertj.core.groups.Tuple.tuple(2, p2.fencingToken()));

            p1.release();
            assertThat(p1.isHeld()).isFalse();
            PermitLease again = theirs.acquire(Duration.ZERO);
            assertThat(again.slot()).isEqualTo(1);
            assertThat(again.fencingToken()).isGreaterThan(p2.fencingToken());
            for (PermitLease p : List.of(p0, p2, again)) {
                p.release();
            }
            assertThat(mine.holders()).isEmpty();
            assertThat(redis.exists(mine.key())).isFalse();
            assertThat(redis.exists(mine.key() + ":permits")).isFalse();
        }
    }

    @Test
    void tryAcquire_waitingCallerOfAnotherProcess_getsTheReleasedPermitWithinItsWait() throws Exception {
        try (RedisLocks a = RedisLocks.builder(redis).build();
                RedisLocks b = RedisLocks.builder(other).build()) {
            DistributedPermits mine = a.permits("p-wake", 2);
            DistributedPermits theirs = b.permits("p-wake", 2);
            PermitLease x = mine.acquire(Duration.ZERO);
            PermitLease y = mine.acquire(Duration.ZERO);
            CompletableFuture<Optional<PermitLease>> waiting =
                    CompletableFuture.supplyAsync(() -> theirs.tryAcquire(Duration.ofSeconds(10)), THREADS);
            await().alias("the waiter is queued")
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> redis.llen(mine.key() + ":waiters") == 1);
            long releasedAt = System.nanoTime();
            y.release();
            Optional<PermitLease> got = waiting.get(10, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            assertThat(got.get().slot()).isEqualTo(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt))
                    .isLessThan(2_000);
            got.get().release();
            x.release();
        }
    }

    @Test
    void acquire_watchdog_renewsPastTheDefaultLeaseAndDeadHolderFreesItsPermitWhenItsLeaseEnds() {
        try (RedisLocks a = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(300))
                        .build();
                RedisLocks b = RedisLocks.builder(other).build()) {
            DistributedPermits mine = a.permits("p-renew", 2);
            DistributedPermits theirs = b.permits("p-renew", 2);
            PermitLease renewed = mine.acquire(Duration.ZERO);
            PermitLease fixed = mine.acquire(Duration.ZERO, Duration.ofMillis(400)); // never released: "dead"
            long start = System.nanoTime();
            Optional<PermitLease> got = theirs.tryAcquire(Duration.ofSeconds(5));
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(got).isPresent();
            assertThat(got.get().slot()).isEqualTo(fixed.slot());
            assertThat(waited).isBetween(200L, 2_000L);
            assertThat(fixed.isHeld()).isFalse();
            assertThat(renewed.isHeld()).isTrue(); // past its 300 ms lease: renewed
            assertThat(mine.holders()).hasSize(2);
            assertThatThrownBy(fixed::release).isInstanceOf(LockLostException.class);
            renewed.release();
            got.get().release();
        }
    }

    @Test
    void acquire_limitOne_behavesAsTheLockFencedAndFifoAcrossProcesses() throws Exception {
        List<RedisLocks> processes = new ArrayList<>();
        try (RedisLocks holderSide = RedisLocks.builder(redis).build()) {
            DistributedPermits one = holderSide.permits("p-one", 1);
            PermitLease first = one.acquire(Duration.ZERO);
            assertThat(first.slot()).isZero();
            assertThat(one.tryAcquire(Duration.ZERO)).as("one holder").isEmpty();
            List<Integer> order = new CopyOnWriteArrayList<>();
            List<Long> tokens = new CopyOnWriteArrayList<>();
            List<CompletableFuture<Void>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RedisLocks p = RedisLocks.builder(i % 2 == 0 ? other : redis).build();
                processes.add(p);
                int n = i;
                waiters.add(CompletableFuture.runAsync(
                        () -> {
                            try (PermitLease l = p.permits("p-one", 1).acquire(Duration.ofSeconds(10))) {
                                order.add(n);
                                tokens.add(l.fencingToken());
                                sleepQuietly(50);
                            }
                        },
                        THREADS));
                long queued = i + 1;
                await().alias("waiter " + i + " queued")
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> redis.llen(one.key() + ":waiters") == queued);
            }
            first.release();
            CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(15, TimeUnit.SECONDS);
            assertThat(order).containsExactly(0, 1, 2);
            assertThat(tokens).isSorted().doesNotHaveDuplicates();
            assertThat(tokens.get(0)).isGreaterThan(first.fencingToken());
        } finally {
            processes.forEach(RedisLocks::close);
        }
    }

    @Test
    void listener_permitEvents_heardWithTheKey() {
        List<String> events = new CopyOnWriteArrayList<>();
        try (RedisLocks a = RedisLocks.builder(redis)
                .listener(new LockListener() {
                    @Override
                    public void onAcquired(String key, long fencingToken, Duration waited) {
                        events.add("acquired " + key + " " + fencingToken);
                    }

                    @Override
                    public void onConflict(String key, Optional<Duration> holderTtl) {
                        events.add("conflict " + key);
                    }

                    @Override
                    public void onReleased(String key, Duration held) {
                        events.add("released " + key);
                    }

                    @Override
                    public void onLost(String key, long fencingToken, Throwable cause) {
                        events.add("lost " + key + " " + fencingToken);
                    }
                })
                .build()) {
            DistributedPermits permits = a.permits("p-events", 1);
            String result = permits.withPermit(Duration.ZERO, () -> "done");
            assertThat(result).isEqualTo("done");
            PermitLease short1 = permits.acquire(Duration.ZERO, Duration.ofMillis(60));
            assertThat(permits.tryAcquire(Duration.ZERO)).isEmpty();
            await().atMost(Duration.ofSeconds(2)).until(() -> !short1.isHeld());
            PermitLease next = permits.acquire(Duration.ofSeconds(2));
            assertThatThrownBy(short1::release).isInstanceOf(LockLostException.class);
            next.release();
            String key = permits.key();
            assertThat(events.get(0)).startsWith("acquired " + key + " ");
            assertThat(events.get(1)).isEqualTo("released " + key);
            assertThat(events)
                    .contains(
                            "acquired " + key + " " + short1.fencingToken(),
                            "conflict " + key,
                            "lost " + key + " " + short1.fencingToken(),
                            "acquired " + key + " " + next.fencingToken());
            assertThat(events.get(events.size() - 1)).isEqualTo("released " + key);
        }
    }

    static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
