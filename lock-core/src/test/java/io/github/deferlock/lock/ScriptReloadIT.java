package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class ScriptReloadIT {

    private static void scriptFlush(RedisServer server) {
        try (Jedis jedis = server.newConnection()) {
            jedis.scriptFlush();
        }
    }

    @Test
    void lock_scriptFlushMidRun_reloadsTransparently(RedisServer server, RedisClient redis) {
        try (RedisLocks locks =
                RedisLocks.builder(redis).defaultLease(Duration.ofMillis(300)).build()) {
            DistributedLock lock = locks.get("flush");
            lock.lock();
            scriptFlush(server);
            // the watchdog's renew script meets NOSCRIPT and must still renew past several leases
            await().pollInSameThread()
                    .during(Duration.ofMillis(900))
                    .atMost(Duration.ofSeconds(3))
                    .until(lock::isHeldByCurrentThread);
            scriptFlush(server);
            lock.unlock();
            assertThat(redis.exists("lock:{flush}")).isFalse();
            scriptFlush(server);
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void lock_redisRestartMidRun_worksAgainAndWakesWaiters(RedisServer server, RedisClient redis) {
        try (RedisClient other = server.newClient();
                RedisLocks locks = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock lock = locks.get("restart");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();

            server.restart();

            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> theirs.get("restart")
                    .tryAcquire(Duration.ZERO)
                    .map(l -> {
                        l.close();
                        return true;
                    })
                    .orElse(false));
            await().pollInSameThread()
                    .atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(lock::tryLock);
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockLease lease = theirs.get("restart").acquire(Duration.ofSeconds(10))) {
                    return lease.fencingToken();
                }
            });
            long token = lock.fencingToken();
            lock.unlock();
            assertThat(waiter).succeedsWithin(Duration.ofSeconds(15)).satisfies(t -> assertThat(t)
                    .isGreaterThan(token));
            assertThat(redis.exists("lock:{restart}")).isFalse();
        }
    }
}
