package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/**
 * Permits resent after a lost reply: Jedis's cluster executor resends a script whose reply a {@link FaultProxy}
 * black-holed (as {@link ClusterFaultIT} does for the lock); the resent acquire returns the first grant, the
 * resent release recognises its own success. One proxied cluster for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class PermitsClusterFaultIT {
    private RedisCluster cluster;
    private final Map<Integer, FaultProxy> proxies = new HashMap<>();
    private RedisClusterClient redis;

    @BeforeAll
    void start() {
        cluster = RedisCluster.start();
        for (RedisServer master : cluster.masters()) {
            proxies.put(master.port(), FaultProxy.to(master));
        }
        redis = RedisClusterClient.builder()
                .nodes(Set.of(proxies.values().iterator().next().hostAndPort()))
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(1000)
                        .socketTimeoutMillis(500)
                        .hostAndPortMapper(hp -> {
                            FaultProxy p = proxies.get(hp.getPort());
                            return p == null ? hp : p.hostAndPort();
                        })
                        .build())
                .maxAttempts(5)
                .maxTotalRetriesDuration(Duration.ofSeconds(10))
                .build();
    }

    @AfterAll
    void stop() {
        redis.close();
        proxies.values().forEach(FaultProxy::close);
        cluster.close();
    }

    @Test
    void tryAcquire_replyLostAndResent_returnsTheFirstGrantAndTakesOnePermit() throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedPermits permits = locks.permits("prs-acquire", 2);
            RedisServer master = cluster.masterFor(permits.key());
            FaultProxy proxy = proxies.get(master.port());
            permits.acquire(Duration.ZERO).release(); // caches the scripts and the connection

            long before = ScriptCalls.count(master);
            proxy.blackholeReplies();
            CompletableFuture<Optional<PermitLease>> acquired =
                    CompletableFuture.supplyAsync(() -> permits.tryAcquire(Duration.ZERO));
            await().atMost(Duration.ofSeconds(5)).until(() -> ScriptCalls.count(master) > before);
            proxy.heal();
            Optional<PermitLease> got = acquired.get(15, TimeUnit.SECONDS);
            assertThat(ScriptCalls.count(master) - before)
                    .as("the client resent the acquire")
                    .isGreaterThanOrEqualTo(2);
            assertThat(got).as("the resent acquire recognised its own grant").isPresent();
            try (Jedis direct = master.newConnection()) {
                assertThat(direct.zcard(permits.key()))
                        .as("one permit taken, not two")
                        .isEqualTo(1);
                assertThat(got.get().fencingToken())
                        .as("the first grant's token")
                        .isEqualTo(Long.parseLong(direct.get(permits.key() + ":fence")));
            }
            assertThat(permits.holders()).hasSize(1);
            got.get().release();
            assertThat(permits.holders()).isEmpty();
        }
    }

    @Test
    void release_replyLostAndResent_succeedsWithoutFalseLoss() throws Exception {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis)
                .listener(new LockListener() {
                    @Override
                    public void onLost(String key, long fencingToken, Throwable cause) {
                        lost.add(fencingToken);
                    }
                })
                .build()) {
            DistributedPermits permits = locks.permits("prs-release", 2);
            RedisServer master = cluster.masterFor(permits.key());
            FaultProxy proxy = proxies.get(master.port());
            permits.acquire(Duration.ZERO).release(); // caches the scripts and the connection

            PermitLease lease = permits.acquire(Duration.ZERO);
            long before = ScriptCalls.count(master);
            proxy.blackholeReplies();
            CompletableFuture<Void> released = CompletableFuture.runAsync(lease::release);
            await().atMost(Duration.ofSeconds(5)).until(() -> ScriptCalls.count(master) > before);
            proxy.heal();
            Throwable failure = null;
            try {
                released.get(15, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(ScriptCalls.count(master) - before)
                    .as("the client resent the release")
                    .isGreaterThanOrEqualTo(2);
            assertThat(failure).as("release after a resend").isNull();
            assertThat(lost).isEmpty();
            assertThat(permits.holders()).isEmpty();
        }
    }
}
