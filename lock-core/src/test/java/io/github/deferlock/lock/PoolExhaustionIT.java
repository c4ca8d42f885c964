package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * Issue 29: {@code tryLock(wait)} keeps its bound while the client's pool is exhausted. Many {@code RedisLocks}
 * on one client share one release-notice subscription, so they cannot exhaust the pool between them; and a pool
 * exhausted by someone else fails a bounded wait with an error naming the pool size, instead of hanging in
 * the pool's borrow.
 */
@ExtendWith(RedisExtension.class)
final class PoolExhaustionIT {
    /** Far above every bound under test, far below the "hung for 5 minutes" of the report. */
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    @Test
    void tryLock_fortyRedisLocksOnADefaultPoolOfEight_everyWaitKeepsItsBound(RedisServer server) throws Exception {
        try (RedisClient redis = server.newClient(); // Jedis's default pool: 8 connections
                RedisClient other = server.newClient();
                RedisLocks holderLocks = RedisLocks.builder(other).build()) {
            List<DistributedLock> held = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                DistributedLock lock = holderLocks.get("busy-" + k);
                assertThat(lock.tryLock()).isTrue();
                held.add(lock);
            }
            List<RedisLocks> many = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(40);
            try {
                for (int i = 0; i < 40; i++) {
                    many.add(RedisLocks.builder(redis).build());
                }
                assertTimeoutPreemptively(GENEROUS, () -> {
                    List<Future<Boolean>> calls = new ArrayList<>();
                    for (int round = 0; round < 5; round++) {
                        for (int i = 0; i < 40; i++) {
                            DistributedLock lock = many.get(i).get("busy-" + (i % 4));
                            long waitMillis = 2 + (i % 19);
                            calls.add(pool.submit(() -> lock.tryLock(Duration.ofMillis(waitMillis))));
                        }
                        for (Future<Boolean> call : calls) {
                            assertThat(call.get())
                                    .as("the key is held elsewhere")
                                    .isFalse();
                        }
                        calls.clear();
                    }
                });
                assertThat(server.subscriptionsPerConnection())
                        .as("one release-notice subscription for the 40 RedisLocks of one client (and prefix)")
                        .hasSizeLessThanOrEqualTo(1); // the holder never waits: it subscribes nothing
            } finally {
                pool.shutdownNow();
                many.forEach(RedisLocks::close);
                held.forEach(DistributedLock::unlock);
            }
        }
    }

    @Test
    void tryLock_poolExhaustedByOthers_failsWithinItsBoundNamingThePoolSize(RedisServer server) throws Exception {
        ConnectionPoolConfig poolConfig = new ConnectionPoolConfig();
        poolConfig.setMaxTotal(3);
        try (RedisClient redis = RedisClient.builder()
                        .hostAndPort(server.hostAndPort())
                        .clientConfig(DefaultJedisClientConfig.builder().build())
                        .poolConfig(poolConfig)
                        .build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("starved");
            assertThat(lock.tryLock()).isTrue(); // scripts loaded, the pool works
            lock.unlock();
            List<Connection> taken = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    taken.add(redis.getPool().getResource()); // someone else's use of the pool, never returned
                }
                assertTimeoutPreemptively(GENEROUS, () -> assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(20)))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("starved")
                        .hasMessageContaining("pool")
                        .hasMessageContaining("3"));
            } finally {
                taken.forEach(Connection::close);
            }
            assertThat(lock.tryLock(Duration.ofSeconds(5)))
                    .as("works again once the pool has room")
                    .isTrue();
            lock.unlock();
        }
    }
}
