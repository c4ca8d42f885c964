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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The {@link PermitsContract} on each topology; bad input and name reuse on the standalone server. */
final class PermitsIT {
    /** Waiting callers run on threads of their own (the common pool may have one thread on 2 cores). */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "permits-test");
        t.setDaemon(true);
        return t;
    });

    @Nested
    final class Standalone extends PermitsContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }

        @Test
        void permits_badInput_refusedNamingTheValue() {
            try (RedisLocks locks = RedisLocks.builder(redis()).build()) {
                assertThatThrownBy(() -> locks.permits("x", 0))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("limit must be within [1, 1000], not 0 (permits 'x')");
                assertThatThrownBy(() -> locks.permits("x", 1001))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("limit must be within [1, 1000], not 1001 (permits 'x')");
                assertThatThrownBy(() -> locks.permits(null, 3))
                        .isInstanceOf(NullPointerException.class)
                        .hasMessage("name cannot be null");
                assertThatThrownBy(() -> locks.permits("", 3))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("empty");
                DistributedPermits p = locks.permits("x", 1000);
                assertThat(p.limit()).isEqualTo(1000);
                assertThatThrownBy(() -> p.tryAcquire(Duration.ofMillis(-1)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("wait");
                assertThatThrownBy(() -> p.tryAcquire(Duration.ZERO, Duration.ofMillis(29)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("lease 29 ms is shorter than 30 ms");
                assertThatThrownBy(() -> p.acquire(null)).isInstanceOf(NullPointerException.class);
                assertThatThrownBy(() -> p.withPermit(Duration.ZERO, (Runnable) null))
                        .isInstanceOf(NullPointerException.class)
                        .hasMessage("body cannot be null");
                assertThat(redis().keys("*")).containsOnly("lock:registry"); // nothing reached Redis
            }
        }

        @Test
        void permits_nameHeldAsLockOrLockNameHeldAsPermits_clearErrorNothingChanged() {
            try (RedisLocks locks = RedisLocks.builder(redis()).build()) {
                DistributedLock lock = locks.get("shared");
                DistributedPermits permits = locks.permits("shared", 3);
                LockLease held = lock.acquire(Duration.ZERO);
                assertThatThrownBy(() -> permits.tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("permits 'shared'")
                        .hasMessageContaining("held as a lock");
                assertThatThrownBy(permits::holders).hasMessageContaining("held as a lock");
                held.release();

                PermitLease permit = permits.acquire(Duration.ZERO);
                assertThatThrownBy(() -> lock.tryLock())
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("WRONGTYPE");
                assertThat(permit.isHeld()).isTrue();
                permit.release();
                assertThat(lock.tryLock()).isTrue(); // free again: usable as a lock
                lock.unlock();
            }
        }

        @Test
        void permits_otherLimitWhileHoldersLive_refusedNamingBothLimitsThenTakesOverWhenNoneLive() {
            try (RedisLocks locks = RedisLocks.builder(redis()).build()) {
                PermitLease held = locks.permits("lim", 3).acquire(Duration.ZERO);
                DistributedPermits five = locks.permits("lim", 5);
                assertThatThrownBy(() -> five.tryAcquire(Duration.ZERO))
                        .isInstanceOf(LockException.class)
                        .hasMessage("permits 'lim' are held under limit 3, not 5: a new limit takes over only when"
                                + " no holder is live");
                assertThat(locks.permits("lim", 3).holders()).hasSize(1);
                held.release();
                PermitLease under5 = five.acquire(Duration.ZERO);
                assertThatThrownBy(() -> locks.permits("lim", 3).tryAcquire(Duration.ZERO))
                        .hasMessageContaining("held under limit 5, not 3");
                under5.release();
            }
        }

        @Test
        void acquire_limitTwoThreeQueuedProcesses_twoReleasesServeTheFirstTwoInArrivalOrder() throws Exception {
            List<RedisLocks> processes = new ArrayList<>();
            try (RedisLocks holder = RedisLocks.builder(redis()).build()) {
                DistributedPermits two = holder.permits("p-fifo2", 2);
                PermitLease a = two.acquire(Duration.ZERO);
                PermitLease b = two.acquire(Duration.ZERO);
                List<Integer> served = new CopyOnWriteArrayList<>();
                List<CompletableFuture<Optional<PermitLease>>> waiting = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    RedisLocks p =
                            RedisLocks.builder(i % 2 == 0 ? other() : redis()).build();
                    processes.add(p);
                    int n = i;
                    waiting.add(CompletableFuture.supplyAsync(
                            () -> {
                                Optional<PermitLease> got =
                                        p.permits("p-fifo2", 2).tryAcquire(Duration.ofSeconds(3));
                                got.ifPresent(l -> served.add(n));
                                return got;
                            },
                            THREADS));
                    long queued = i + 1;
                    await().alias("waiter " + i + " queued")
                            .atMost(Duration.ofSeconds(5))
                            .until(() -> redis().llen(two.key() + ":waiters") == queued);
                }
                a.release();
                b.release();
                await().alias("two served").atMost(Duration.ofSeconds(5)).until(() -> served.size() == 2);
                assertThat(served).containsExactlyInAnyOrder(0, 1); // the third, queued last, still waits
                assertThat(waiting.get(2)).isNotDone();
                waiting.get(0).get(5, TimeUnit.SECONDS).orElseThrow().release();
                assertThat(waiting.get(2).get(5, TimeUnit.SECONDS)).isPresent();
                assertThat(served).containsExactly(served.get(0), served.get(1), 2);
                waiting.get(1).get().orElseThrow().release();
                waiting.get(2).get().orElseThrow().release();
            } finally {
                processes.forEach(RedisLocks::close);
            }
        }

        @Test
        void tryAcquire_interruptedWhileWaiting_lockExceptionFlagRestoredAndQueueLeft() throws Exception {
            try (RedisLocks locks = RedisLocks.builder(redis()).build()) {
                DistributedPermits one = locks.permits("p-int", 1);
                PermitLease held = one.acquire(Duration.ZERO);
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread waiter = new Thread(() -> {
                    try {
                        one.tryAcquire(Duration.ofSeconds(10));
                        failure.complete(null);
                    } catch (RuntimeException e) {
                        failure.complete(Thread.currentThread().isInterrupted() ? e : new AssertionError("flag lost"));
                    }
                });
                waiter.start();
                await().atMost(Duration.ofSeconds(5)).until(() -> redis().llen(one.key() + ":waiters") == 1);
                waiter.interrupt();
                assertThat(failure.get(5, TimeUnit.SECONDS))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("interrupted while waiting for a permit of 'p-int'");
                assertThat(redis().exists(one.key() + ":waiters")).isFalse();
                held.release();
            }
        }
    }

    @Nested
    final class Cluster extends PermitsContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends PermitsContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
