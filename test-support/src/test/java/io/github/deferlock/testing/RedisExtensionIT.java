package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class RedisExtensionIT {

    private static int firstPort;

    @Test
    @Order(1)
    void injects_serverAndClient(RedisServer server, RedisClient redis, UnifiedJedis same) {
        firstPort = server.port();
        assertThat(same).isSameAs(redis);
        redis.set("left-behind", "1");
        assertThat(redis.get("left-behind")).isEqualTo("1");
    }

    @Test
    @Order(2)
    void flushes_beforeEachTest_onTheSameServer(RedisServer server, RedisClient redis) {
        assertThat(server.port()).isEqualTo(firstPort);
        assertThat(redis.exists("left-behind")).isFalse();
    }

    @Test
    @Order(3)
    void killedServer_isRestartedForTheNextTest(RedisServer server) {
        server.kill();
        assertThat(server.isRunning()).isFalse();
    }

    @Test
    @Order(4)
    void afterKill_serverRunsAgain(RedisServer server, RedisClient redis) {
        assertThat(server.isRunning()).isTrue();
        assertThat(redis.ping()).isEqualTo("PONG");
    }

    @Nested
    final class Inner {
        @Test
        void nested_sharesTheOuterServer(RedisServer server) {
            assertThat(server.port()).isEqualTo(firstPort);
        }
    }
}
