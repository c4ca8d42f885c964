package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisSentinelClient;

final class RedisSentinelGroupIT {

    @Test
    void killPrimary_sentinelsPromoteAReplicaAndClientFollows() {
        long started = System.nanoTime();
        try (RedisSentinelGroup group = RedisSentinelGroup.start();
                RedisSentinelClient redis = group.newClient()) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            assertThat(group.sentinels()).hasSize(3);
            RedisServer old = group.primary();
            assertThat(old).isSameAs(group.servers().get(0));
            redis.set("k", "v");
            redis.waitReplicas("k", 2, 1000);
            old.kill();
            RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(20));
            assertThat(promoted).isNotSameAs(old);
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
                redis.set("k2", "v2");
                assertThat(redis.get("k")).isEqualTo("v");
            });
            assertThat(redis.getCurrentMaster().getPort()).isEqualTo(promoted.port());
        }
    }
}
