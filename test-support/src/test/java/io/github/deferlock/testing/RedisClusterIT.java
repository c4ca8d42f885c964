package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

final class RedisClusterIT {

    @Test
    void start_clusterOkAndKeysSpreadOverThreeMasters() {
        long started = System.nanoTime();
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient()) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            assertThat(cluster.masters()).hasSize(3);
            Set<Integer> owners = new HashSet<>();
            for (int i = 0; i < 300; i++) {
                redis.set("key-" + i, "v" + i);
                owners.add(cluster.masterFor("key-" + i).port());
            }
            assertThat(owners).hasSize(3);
            for (RedisServer m : cluster.masters()) {
                assertThat(cluster.keyCount(m)).isBetween(50L, 150L);
            }
            assertThat(redis.get("key-42")).isEqualTo("v42");
        }
    }

    @Test
    void killMaster_replicaTakesOverAndDataSurvives() {
        try (RedisCluster cluster = RedisCluster.builder().replicas(true).start();
                RedisClusterClient redis = cluster.newClient()) {
            assertThat(cluster.nodes()).hasSize(6);
            redis.set("{k}a", "1");
            redis.waitReplicas("{k}a", 1, 1000);
            RedisServer owner = cluster.masterFor("{k}a");
            owner.kill();
            cluster.awaitHealthy(Duration.ofSeconds(15));
            assertThat(cluster.masterFor("{k}a")).isNotSameAs(owner);
            assertThat(redis.get("{k}a")).isEqualTo("1");
            redis.set("{k}b", "2");
            owner.restart();
            cluster.awaitHealthy(Duration.ofSeconds(15));
            assertThat(redis.get("{k}b")).isEqualTo("2");
        }
    }

    @Test
    void restartNode_rejoinsWithItsSlots() {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient()) {
            RedisServer owner = cluster.masterFor("x");
            owner.restart();
            cluster.awaitHealthy(Duration.ofSeconds(15));
            assertThat(cluster.masterFor("x")).isSameAs(owner);
            redis.set("x", "1");
            assertThat(redis.get("x")).isEqualTo("1");
        }
    }
}
