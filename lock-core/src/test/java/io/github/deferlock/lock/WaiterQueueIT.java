package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;

/**
 * Issue 19: the FIFO waiter queue of a lock key in Redis ({@code p{e}:waiters}, {@code p{e}:waiter-deadlines}):
 * a released key goes to the queue's live head, a crashed or frozen head delays the queue by about its
 * entry's life (1 s) plus one poll, a waiter that gives up leaves, and neither {@code tryLock()} nor a local
 * hand-off overtakes a queued waiter of another process.
 */
@ExtendWith(RedisExtension.class)
final class WaiterQueueIT {

    private static JvmProcess queuedWaiter(RedisServer server, RedisClient redis, String name) {
        JvmProcess waiter = JvmProcess.start(
                WaiterMain.class, server.hostAndPort().getHost(), Integer.toString(server.port()), name);
        waiter.awaitLine("READY", Duration.ofSeconds(60));
        // a queued waiter marks the holder's value: token + '+'
        await().atMost(Duration.ofSeconds(20))
                .until(() -> String.valueOf(redis.get("lock:{" + name + "}")).endsWith("+"));
        return waiter;
    }

    @Test
    void tryLock_keyReleasedToAFrozenQueuedWaiter_failsUntilTheWaitersEntryExpires(
            RedisServer server, RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisClient other = server.newClient();
                RedisLocks others = RedisLocks.builder(other).build()) {
            DistributedLock holder = locks.get("frozen");
            holder.lock();
            try (JvmProcess waiter = queuedWaiter(server, redis, "frozen")) {
                waiter.pause(); // SIGSTOP: queued, alive as far as Redis knows, but it cannot take its turn
                holder.unlock();
                long releasedAt = System.nanoTime();
                DistributedLock newcomer = others.get("frozen");
                assertThat(newcomer.tryLock())
                        .as("tryLock() would overtake a live queued waiter")
                        .isFalse();
                assertThat(redis.get("lock:{frozen}")).startsWith("~"); // reserved for the queue's head
                await().pollInSameThread()
                        .pollInterval(Duration.ofMillis(20))
                        .atMost(Duration.ofSeconds(5))
                        .until(newcomer::tryLock);
                long delayMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt);
                LoggerFactory.getLogger(WaiterQueueIT.class)
                        .info("a frozen queued waiter kept the released key for {} ms", delayMillis);
                assertThat(delayMillis).isLessThanOrEqualTo(1500);
                assertThat(redis.llen("lock:{frozen}:waiters")).isZero();
                newcomer.unlock();
            }
        }
    }

    @Test
    void lock_headWaiterKilled_nextWaiterAcquiresWithinOneAndAHalfSeconds(RedisServer server, RedisClient redis)
            throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisClient other = server.newClient();
                RedisLocks others = RedisLocks.builder(other).build()) {
            DistributedLock holder = locks.get("crash");
            holder.lock();
            try (JvmProcess head = queuedWaiter(server, redis, "crash")) {
                CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
                    DistributedLock lock = others.get("crash");
                    if (!lock.tryLock(Duration.ofSeconds(20))) {
                        return -1L;
                    }
                    long at = System.nanoTime();
                    lock.unlock();
                    return at;
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> redis.llen("lock:{crash}:waiters") == 2);
                head.kill(); // SIGKILL: its entry stays until its deadline passes
                long releasedAt = System.nanoTime();
                holder.unlock();
                long acquiredAt = next.get(20, TimeUnit.SECONDS);
                assertThat(acquiredAt).isNotEqualTo(-1L);
                long delayMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt - releasedAt);
                LoggerFactory.getLogger(WaiterQueueIT.class)
                        .info("a killed head waiter delayed the next waiter by {} ms", delayMillis);
                assertThat(delayMillis).isLessThanOrEqualTo(1500);
            }
        }
    }

    @Test
    void tryLockWithWait_runsOut_leavesTheQueueSoTheReleaseDeletesTheKey(RedisServer server, RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisClient other = server.newClient();
                RedisLocks others = RedisLocks.builder(other).build()) {
            DistributedLock holder = locks.get("gave-up");
            holder.lock();
            assertThat(others.get("gave-up").tryLock(Duration.ofMillis(300))).isFalse();
            assertThat(redis.llen("lock:{gave-up}:waiters")).isZero();
            assertThat(redis.zcard("lock:{gave-up}:waiter-deadlines")).isZero();
            holder.unlock();
            assertThat(redis.exists("lock:{gave-up}")).isFalse(); // not reserved for anyone
            DistributedLock newcomer = others.get("gave-up");
            assertThat(newcomer.tryLock()).isTrue();
            newcomer.unlock();
        }
    }

    @Test
    void unlock_localThreadAndRemoteWaiterQueued_remoteWaiterGoesFirst(RedisServer server, RedisClient redis)
            throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisClient other = server.newClient();
                RedisLocks others = RedisLocks.builder(other).build()) {
            DistributedLock mine = locks.get("yield");
            mine.lock();
            Thread local = new Thread(() -> {
                mine.lock();
                order.add("local " + mine.fencingToken());
                mine.unlock();
            });
            local.start();
            await().pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> local.getState() == Thread.State.WAITING); // queued at the local gate
            Thread remote = new Thread(() -> {
                DistributedLock theirs = others.get("yield");
                if (theirs.tryLock(Duration.ofSeconds(20))) {
                    order.add("remote " + theirs.fencingToken());
                    theirs.unlock();
                }
            });
            remote.start();
            await().pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> String.valueOf(redis.get("lock:{yield}")).endsWith("+")); // queued in Redis
            mine.unlock(); // a hand-off to the local thread would overtake the remote waiter
            local.join(20_000);
            remote.join(20_000);
        }
        assertThat(order).hasSize(2);
        assertThat(order.get(0)).startsWith("remote ");
        assertThat(order.get(1)).startsWith("local ");
        long remoteToken = Long.parseLong(order.get(0).substring(7));
        long localToken = Long.parseLong(order.get(1).substring(6));
        assertThat(localToken).isGreaterThan(remoteToken);
    }

    @Test
    void waiterChannel_afterTheWait_staysSubscribedAboutTwoSecondsThenUnsubscribed(
            RedisServer server, RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisClient other = server.newClient();
                RedisLocks others = RedisLocks.builder(other).build()) {
            DistributedLock holder = locks.get("linger");
            holder.lock();
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = others.get("linger");
                boolean got = lock.tryLock(Duration.ofSeconds(20));
                if (got) {
                    lock.unlock();
                }
                return got;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> channels(server) == 1);
            holder.unlock();
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
            long doneAt = System.nanoTime();
            // kept for the next wait on the key (a process contending again hears its turn at once) ...
            assertThat(channels(server)).isEqualTo(1);
            // ... and ended once idle
            await().atMost(Duration.ofSeconds(10)).until(() -> channels(server) == 0);
            assertThat(Duration.ofNanos(System.nanoTime() - doneAt))
                    .isBetween(Duration.ofMillis(1500), Duration.ofSeconds(5));
        }
    }

    private static long channels(RedisServer server) {
        try (redis.clients.jedis.Jedis jedis = server.newConnection()) {
            return jedis.pubsubChannels("lock:{linger}:released:*").size();
        }
    }
}
