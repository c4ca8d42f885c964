package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock contract, written once; {@link LockContractIT} runs it against a standalone server, a three-master
 * cluster and a sentinel group (one {@code @Nested} subclass each). Every client is of the topology's own
 * kind, so a {@code CROSSSLOT} or a {@code READONLY} anywhere fails the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockContract {

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

    /** How many channels matching {@code pattern} have subscribers on {@code node}. */
    private static long subscribers(RedisServer node, String pattern, boolean sharded) {
        try (Jedis j = node.newConnection()) {
            if (sharded) {
                List<?> reply = (List<?>) j.sendCommand(Protocol.Command.PUBSUB, "SHARDCHANNELS", pattern);
                return reply.size();
            }
            return j.pubsubChannels(pattern).size();
        }
    }

    private boolean sharded() {
        return deployment.kind() == RedisDeployment.Kind.CLUSTER
                && deployment.masters().get(0).versionAtLeast(7, 0);
    }

    @Test
    void tryLock_free_acquiresAndUnlockDeletesKey() {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("order:42");
            assertThat(lock.tryLock()).isTrue();
            long fence = Long.parseLong(redis.get("lock:{order:42}:fence"));
            assertThat(lock.fencingToken()).isEqualTo(fence - 7); // a block of 8 reserved for hand-offs
            assertThat(redis.pttl("lock:{order:42}")).isBetween(25_000L, 30_000L);
            lock.unlock();
            assertThat(redis.exists("lock:{order:42}")).isFalse();
        }
    }

    @Test
    void tryLock_reentered_oneKeyReleasedAfterLastUnlock() {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("re");
            lock.lock();
            String fence = redis.get("lock:{re}:fence");
            assertThat(lock.tryLock(Duration.ofSeconds(1))).isTrue();
            lock.lock();
            assertThat(lock.holdCount()).isEqualTo(3);
            assertThat(redis.get("lock:{re}:fence")).isEqualTo(fence); // one Redis acquisition
            lock.unlock();
            lock.unlock();
            assertThat(redis.exists("lock:{re}")).isTrue();
            lock.unlock();
            assertThat(redis.exists("lock:{re}")).isFalse();
        }
    }

    @Test
    void fencingToken_everyAcquisition_strictlyIncreases() {
        try (RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            long last = 0;
            for (int i = 0; i < 20; i++) {
                try (LockLease lease = (i % 2 == 0 ? mine : theirs).get("fence").acquire(Duration.ofSeconds(1))) {
                    // each acquisition reserves a block of 8 tokens and uses the first: past the previous block
                    assertThat(lease.fencingToken()).isGreaterThan(last + 7);
                    last = lease.fencingToken();
                }
            }
        }
    }

    @Test
    @SuppressWarnings("deprecation") // lastHolderTtl() keeps working until it is removed
    void tryLock_heldByOtherClient_conflict() {
        try (RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = theirs.get("k");
            assertThat(held.tryLock()).isTrue();
            DistributedLock lock = mine.get("k");
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.lastHolderTtl()).isPresent();
            assertThatThrownBy(() -> lock.withLock(() -> "never"))
                    .isInstanceOfSatisfying(LockConflictException.class, e -> assertThat(e.key())
                            .isEqualTo("k"));
            held.unlock();
            assertThat(lock.withLock(() -> "ran")).isEqualTo("ran");
        }
    }

    @Test
    void lock_shortLeaseHeldLonger_watchdogRenews() {
        try (RedisLocks locks =
                RedisLocks.builder(redis).defaultLease(Duration.ofMillis(600)).build()) {
            DistributedLock lock = locks.get("renewed");
            lock.lock();
            await().pollDelay(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(redis.pttl("lock:{renewed}")).isPositive();
            lock.unlock();
            assertThat(redis.exists("lock:{renewed}")).isFalse();
        }
    }

    @Test
    void unlock_keyDeletedWhileHeld_lostWithLowerTokenThanRival() {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (RedisLocks mine = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(600))
                        .listener(new LockListener() {
                            @Override
                            public void onLost(String key, long fencingToken, Throwable cause) {
                                lost.add(fencingToken);
                            }
                        })
                        .build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock lock = mine.get("victim");
            lock.lock();
            long token = lock.fencingToken();
            redis.del("lock:{victim}");
            DistributedLock rival = theirs.get("victim");
            assertThat(rival.tryLock()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> lost.contains(token));
            assertThatThrownBy(lock::unlock)
                    .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.fencingToken())
                            .isLessThan(rival.fencingToken()));
            assertThat(redis.exists("lock:{victim}")).isTrue();
            rival.unlock();
        }
    }

    @Test
    void tryLock_releasedByOtherClient_wakesOnReleaseNotice() {
        try (RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = theirs.get("notice");
            held.lock();
            AtomicLong acquiredAt = new AtomicLong();
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = mine.get("notice");
                boolean got = lock.tryLock(Duration.ofSeconds(20));
                acquiredAt.set(System.nanoTime());
                lock.unlock();
                return got;
            });
            // sharded: on the key's master; plain (also a 6.2 cluster, which forwards PUBLISH): on any node
            List<RedisServer> nodes = sharded() ? List.of(deployment.nodeFor("lock:{notice}")) : deployment.masters();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> nodes.stream()
                                    .mapToLong(n -> subscribers(n, "lock:{notice}:released:*", sharded()))
                                    .sum()
                            == 1L);
            // let the fallback poll grow to its 500 ms cap, so only the notice can wake the waiter quickly
            await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
            long releasedAt = System.nanoTime();
            held.unlock();
            assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
            assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).isLessThan(Duration.ofMillis(250));
        }
    }

    private static Thread waiter(RedisLocks locks, String who, List<String> order) {
        return new Thread(() -> {
            DistributedLock lock = locks.get("fifo");
            if (lock.tryLock(Duration.ofSeconds(20))) {
                order.add(who);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }
        });
    }

    /** Issue 19: waiters of other clients queue in Redis, in the key's slot, and are served in arrival order. */
    @Test
    void lock_waitersOfOtherClients_servedInArrivalOrder() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        try (RedisLocks a = RedisLocks.builder(redis).build();
                RedisLocks b = RedisLocks.builder(other).build();
                RedisLocks c = RedisLocks.builder(redis).build()) {
            DistributedLock held = a.get("fifo");
            held.lock();
            Thread first = waiter(b, "b", order);
            first.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.llen("lock:{fifo}:waiters") == 1);
            Thread second = waiter(c, "c", order);
            second.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.llen("lock:{fifo}:waiters") == 2);
            assertThat(redis.zcard("lock:{fifo}:waiter-deadlines")).isEqualTo(2);
            if (deployment.kind() == RedisDeployment.Kind.CLUSTER) {
                assertThat(deployment.nodeFor("lock:{fifo}:waiters")).isSameAs(deployment.nodeFor("lock:{fifo}"));
            }
            held.unlock();
            first.join(20_000);
            second.join(20_000);
        }
        assertThat(order).containsExactly("b", "c");
        assertThat(redis.exists("lock:{fifo}")).isFalse();
        assertThat(redis.llen("lock:{fifo}:waiters")).isZero();
    }
}
