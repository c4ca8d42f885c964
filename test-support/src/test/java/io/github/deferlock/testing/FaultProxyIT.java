package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

@ExtendWith(RedisExtension.class)
final class FaultProxyIT {

    private static Jedis connect(FaultProxy proxy, int timeoutMillis) {
        return new Jedis(
                proxy.hostAndPort(),
                DefaultJedisClientConfig.builder()
                        .autoNegotiateProtocol(false)
                        .socketTimeoutMillis(timeoutMillis)
                        .build());
    }

    @Test
    void pass_forwardsCommands(RedisServer server, RedisClient direct) {
        try (FaultProxy proxy = FaultProxy.to(server);
                Jedis jedis = connect(proxy, 5000)) {
            jedis.set("k", "v");
            assertThat(direct.get("k")).isEqualTo("v");
            assertThat(proxy.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void cut_failsClients_andHealRecovers(RedisServer server) {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient redis =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build()) {
            assertThat(redis.ping()).isEqualTo("PONG");
            proxy.refuse();
            assertThatThrownBy(redis::ping).isInstanceOf(JedisConnectionException.class);
            proxy.heal();
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> "PONG".equals(redis.ping()));
        }
    }

    @Test
    void cut_resetsOpenConnections(RedisServer server) {
        try (FaultProxy proxy = FaultProxy.to(server)) {
            Jedis jedis = connect(proxy, 5000);
            jedis.ping();
            proxy.cut();
            assertThatThrownBy(jedis::ping).isInstanceOf(JedisConnectionException.class);
            closeBroken(jedis);
            try (Jedis again = connect(proxy, 5000)) {
                assertThat(again.ping()).isEqualTo("PONG");
            }
        }
    }

    /** Jedis may throw when closing a connection the peer reset; that is not what these tests are about. */
    private static void closeBroken(Jedis jedis) {
        try {
            jedis.close();
        } catch (JedisConnectionException expected) {
            // the socket is already gone
        }
    }

    @Test
    void blackhole_makesClientsTimeOut(RedisServer server, RedisClient direct) {
        try (FaultProxy proxy = FaultProxy.to(server);
                Jedis jedis = connect(proxy, 300)) {
            jedis.ping();
            proxy.blackhole();
            assertThatThrownBy(() -> jedis.set("k", "v")).isInstanceOf(JedisConnectionException.class);
            assertThat(direct.exists("k"))
                    .as("the request never reached the server")
                    .isFalse();
        }
    }

    @Test
    void blackholeReplies_serverActsButClientNeverHears(RedisServer server, RedisClient direct) {
        try (FaultProxy proxy = FaultProxy.to(server)) {
            Jedis jedis = connect(proxy, 300);
            jedis.ping();
            proxy.blackholeReplies();
            assertThatThrownBy(() -> jedis.set("k", "v")).isInstanceOf(JedisConnectionException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> "v".equals(direct.get("k")));
            closeBroken(jedis);
        }
    }

    @Test
    void latency_delaysEveryRoundTrip(RedisServer server) {
        try (FaultProxy proxy = FaultProxy.to(server);
                Jedis jedis = connect(proxy, 5000)) {
            jedis.ping();
            proxy.latency(Duration.ofMillis(100));
            long start = System.nanoTime();
            jedis.ping();
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(tookMillis).isGreaterThanOrEqualTo(190); // 100 ms each way
            proxy.heal();
            start = System.nanoTime();
            jedis.ping();
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(100);
        }
    }
}
