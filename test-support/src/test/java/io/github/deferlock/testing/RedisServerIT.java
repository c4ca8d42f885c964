package io.github.deferlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

final class RedisServerIT {

    @Test
    void start_answersPingOnLoopbackWithOwnDir() {
        Path dir;
        try (RedisServer server = RedisServer.start();
                RedisClient redis = server.newClient()) {
            dir = server.dataDir();
            assertThat(redis.ping()).isEqualTo("PONG");
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.port()).isNotEqualTo(6379);
            assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
            // Valkey reports the Redis version it is compatible with (7.2.4 for Valkey 8) as redis_version, and
            // its own version, the one its binary prints, as valkey_version.
            String info = redis.info("server");
            String own = info.contains("valkey_version:")
                    ? info.replaceAll("(?s).*valkey_version:([0-9.]+).*", "$1")
                    : server.version();
            assertThat(own).isEqualTo(RedisBinary.resolve().version());
            assertThat(Files.isDirectory(dir)).isTrue();
        }
        assertThat(Files.exists(dir)).as("data dir deleted on close").isFalse();
    }

    @Test
    void close_stopsTheProcess() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        server.close();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();
        server.close(); // idempotent
    }

    @Test
    void twoServers_getDifferentPorts() {
        try (RedisServer a = RedisServer.start();
                RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
        }
    }

    @Test
    void killAndRestart_withAofAlways_keepsAcknowledgedWrites() {
        try (RedisServer server =
                RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            int port = server.port();
            try (RedisClient redis = server.newClient()) {
                for (int i = 0; i < 100; i++) {
                    redis.set("k" + i, "v" + i);
                }
            }
            long oldPid = server.pid();
            server.kill();
            assertThat(server.isRunning()).isFalse();
            server.restart();
            assertThat(server.pid()).isNotEqualTo(oldPid);
            assertThat(server.port()).isEqualTo(port);
            try (RedisClient redis = server.newClient()) {
                assertThat(redis.dbSize()).isEqualTo(100);
                assertThat(redis.get("k42")).isEqualTo("v42");
            }
        }
    }

    @Test
    void killAndRestart_withoutPersistence_losesData() {
        try (RedisServer server = RedisServer.start()) {
            try (RedisClient redis = server.newClient()) {
                redis.set("k", "v");
            }
            server.kill();
            server.restart();
            try (RedisClient redis = server.newClient()) {
                assertThat(redis.exists("k")).isFalse();
            }
        }
    }

    @Test
    void pause_blocksClientsUntilResume() throws Exception {
        try (RedisServer server = RedisServer.start();
                Jedis jedis = new Jedis(
                        server.hostAndPort(),
                        DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(30_000)
                                .build())) {
            assertThat(jedis.ping()).isEqualTo("PONG");
            server.pause();
            assertThat(server.isPaused()).isTrue();
            CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> jedis.set("k", "v"));
            assertThatThrownBy(() -> reply.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            server.resume();
            assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("OK");
        }
    }

    @Test
    void config_setsALiveSetting() {
        try (RedisServer server = RedisServer.start();
                Jedis jedis = server.newConnection()) {
            server.config("maxmemory-policy", "allkeys-lru");
            assertThat(jedis.configGet("maxmemory-policy")).containsEntry("maxmemory-policy", "allkeys-lru");
        }
    }

    @Test
    void builderSetting_reachesTheConfigFile() {
        try (RedisServer server =
                        RedisServer.builder().setting("maxmemory", "10mb").start();
                Jedis jedis = server.newConnection()) {
            assertThat(jedis.configGet("maxmemory")).containsEntry("maxmemory", "10485760");
        }
    }

    @Test
    void builder_rejectsBadAndRepeatedSettings() {
        assertThatThrownBy(() -> RedisServer.builder().appendFsync("sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sometimes");
        assertThatThrownBy(() -> RedisServer.builder().appendOnly(true).appendOnly(false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("appendonly was already set to 'yes'");
        assertThatThrownBy(() -> RedisServer.builder().startTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badSetting_failsStartWithTheServerLog() {
        assertThatThrownBy(() ->
                        RedisServer.builder().setting("no-such-directive", "1").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no-such-directive");
    }

    @Test
    void kill_dropsConnectionsAtOnce() {
        try (RedisServer server = RedisServer.start();
                Jedis jedis = server.newConnection()) {
            jedis.ping();
            server.kill();
            assertThatThrownBy(jedis::ping).isInstanceOf(JedisConnectionException.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !server.isRunning());
        }
    }
}
