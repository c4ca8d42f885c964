package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/** {@link Topology} against a real redis-server and a real Redis Cluster. */
@ExtendWith(RedisExtension.class)
final class TopologyIT {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void standalone_isNoCluster_andPublishesPlainly(RedisClient redis) {
        Topology topology = Topology.of(redis);

        assertThat(topology.isCluster()).isFalse();
        assertThat(topology.routesBySlot()).isFalse();
        assertThat(topology.slotOf("a".getBytes(StandardCharsets.UTF_8))).isZero();
        assertThat(topology.shardedPubSub()).contains(false);
        assertThat(topology.publishFlag()).containsExactly('0');
        assertThatThrownBy(() -> topology.connectionForSlot(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not route by slot");
        topology.refreshSlots(); // nothing to do, no failure
    }

    @Test
    void clusterClient_routesBySlot_andUsesShardedPubSubOnRedis7() {
        try (RedisClusterClient redis = cluster.newClient()) {
            Topology topology = Topology.of(redis);
            byte[] key = "{user:1}:lock".getBytes(StandardCharsets.UTF_8);
            int slot = RedisCluster.slot("{user:1}:lock");
            boolean redis7 = cluster.node(0).versionAtLeast(7, 0);

            assertThat(topology.isCluster()).isTrue();
            assertThat(topology.routesBySlot()).isTrue();
            assertThat(topology.slotOf(key)).isEqualTo(slot);
            assertThat(topology.shardedPubSub()).contains(redis7);
            assertThat(topology.publishFlag()).containsExactly(redis7 ? '1' : '0');
            try (Connection c = topology.connectionForSlot(slot)) {
                assertThat(c.getHostAndPort().getPort())
                        .isEqualTo(cluster.masterForSlot(slot).port());
            }
            topology.refreshSlots();
        }
    }

    @Test
    @SuppressWarnings("deprecation")
    void legacyJedisCluster_isACluster_withoutRouting_soItPublishesPlainly() {
        try (JedisCluster redis = new JedisCluster(cluster.seeds())) {
            Topology topology = Topology.of(redis);

            assertThat(topology.isCluster()).isTrue();
            assertThat(topology.routesBySlot()).isFalse();
            assertThat(topology.shardedPubSub()).contains(false);
            assertThat(topology.slotOf("{x}".getBytes(StandardCharsets.UTF_8))).isEqualTo(RedisCluster.slot("{x}"));
        }
    }
}
