package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisSentinelGroup;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;

/** The code of the README "Cluster and Sentinel" section, verbatim between the markers. */
final class ReadmeClusterSentinelExampleTest {

    @Test
    void clusterSnippet_runs() {
        try (RedisCluster cluster = RedisCluster.start()) {
            Set<HostAndPort> seeds = cluster.seeds();
            long token;
            // README-cluster:start
            try (RedisClusterClient redis =
                            RedisClusterClient.builder().nodes(seeds).build();
                    RedisLocks locks = RedisLocks.builder(redis).build()) {
                try (LockLease lease = locks.get("order:42").acquire(Duration.ofSeconds(5))) {
                    token = lease.fencingToken(); // pass it to the resource you write to
                }
            }
            // README-cluster:end
            assertThat(token).isPositive(); // the first block of a fresh counter, seeded from the server time
        }
    }

    @Test
    void sentinelSnippet_runs() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            Set<HostAndPort> sentinels = group.sentinels();
            String masterName = RedisSentinelGroup.MASTER_NAME;
            long token;
            // README-sentinel:start
            try (RedisSentinelClient redis = RedisSentinelClient.builder()
                            .masterName(masterName)
                            .sentinels(sentinels)
                            .build();
                    RedisLocks locks = RedisLocks.builder(redis)
                            .waitForReplicas(1, Duration.ofMillis(500)) // optional: see docs/cluster-sentinel.md
                            .build()) {
                try (LockLease lease = locks.get("order:42").acquire(Duration.ofSeconds(5))) {
                    token = lease.fencingToken();
                }
            }
            // README-sentinel:end
            assertThat(token).isPositive(); // the first block of a fresh counter, seeded from the server time
        }
    }
}
