package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
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

    /**
     * A sentinel port taken between being chosen and being bound (by another process, or as the local port of an
     * outgoing connection) makes that sentinel exit with "Address already in use"; the group starts its sentinels
     * again on new ports instead of failing (a CI run failed so in FailoverIT).
     */
    @Test
    void aSentinelPortTakenBeforeItsSentinelBinds_theSentinelsStartOnOtherPorts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicBoolean handedOut = new AtomicBoolean();
            RedisSentinelGroup.Builder b = RedisSentinelGroup.builder();
            b.sentinelPorts = () -> handedOut.getAndSet(true) ? RedisServer.freePort() : taken.getLocalPort();
            try (RedisSentinelGroup group = b.start();
                    RedisSentinelClient redis = group.newClient()) {
                assertThat(handedOut).isTrue();
                assertThat(group.sentinels().stream().map(HostAndPort::getPort))
                        .hasSize(3)
                        .doesNotContain(taken.getLocalPort());
                redis.set("k", "v");
                assertThat(redis.get("k")).isEqualTo("v");
            }
        }
    }
}
