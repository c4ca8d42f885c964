package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Q8: a server that may evict queue keys makes a worker refuse to start (or warn when allowed); a policy the
 * worker cannot read is one WARN. The WARN lines are read from the log ({@link CapturedLog}).
 */
@ExtendWith(RedisExtension.class)
final class EvictionPolicyIT {
    private RedisServer server;

    @AfterEach
    void resetPolicy() {
        if (server != null) {
            server.config("maxmemory-policy", "noeviction");
            try (Jedis admin = server.newConnection()) {
                admin.aclDelUser("app");
            }
        }
    }

    @Test
    void start_allkeysLru_refusesNamingPolicyAndFix(RedisServer server, UnifiedJedis redis) {
        this.server = server;
        server.config("maxmemory-policy", "allkeys-lru");
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "q8", Msg.class).build();
        DelayQueueWorker<Msg> worker =
                DelayQueueWorker.builder(queue, job -> {}).build();
        try (CapturedLog log = new CapturedLog()) {
            assertThatThrownBy(worker::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("allkeys-lru")
                    .hasMessageContaining("noeviction")
                    .hasMessageContaining("volatile-")
                    .hasMessageContaining("allowEvictionPolicy(true)");
            assertThat(log.warnings("maxmemory-policy")).isEmpty(); // refused, not warned
        }
        assertThat(worker.isRunning()).isFalse();
        assertThat(worker.close(Duration.ofSeconds(1))).isTrue();
    }

    @Test
    void start_allkeysLruAllowedExplicitly_warnsOnceNamingThePolicy_startsAndHandles(
            RedisServer server, UnifiedJedis redis) {
        this.server = server;
        server.config("maxmemory-policy", "allkeys-lru");
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "q8", Msg.class).build();
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        try (CapturedLog log = new CapturedLog();
                DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                                queue, job -> handled.add(job.payload().n()))
                        .allowEvictionPolicy(true)
                        .build()
                        .start()) {
            queue.enqueue(new Msg("x", 1));
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains(1));
            assertThat(worker.isRunning()).isTrue();
            assertThat(log.warnings("maxmemory-policy")).hasSize(1);
            assertThat(log.warnings(
                            "'q8'", "maxmemory-policy is allkeys-lru", "noeviction", "allowEvictionPolicy(true)"))
                    .hasSize(1);
        }
    }

    @Test
    void start_volatileOrNoeviction_startsWithoutWarning(RedisServer server) {
        this.server = server;
        for (String policy : new String[] {"noeviction", "volatile-lru", "volatile-ttl"}) {
            server.config("maxmemory-policy", policy);
            // a fresh client each time: see the report on stray pub/sub replies after a quick start/close
            RedisClient redis = server.newClient();
            DelayQueue<Msg> queue = DelayQueue.builder(redis, "q8", Msg.class).build();
            assertThat(queue.evictionPolicy()).contains(policy);
            try (CapturedLog log = new CapturedLog();
                    DelayQueueWorker<Msg> worker =
                            DelayQueueWorker.builder(queue, job -> {}).build().start()) {
                assertThat(worker.isRunning()).isTrue();
                assertThat(log.warnings("maxmemory-policy")).as(policy).isEmpty();
            }
            redis.close();
        }
    }

    @Test
    void evictionPolicy_infoDeniedConfigAllowed_readFromConfigGet(RedisServer server) {
        this.server = server;
        server.config("maxmemory-policy", "allkeys-lfu");
        try (RedisClient app = appUser(server, "-info")) {
            DelayQueue<Msg> queue = DelayQueue.builder(app, "q8", Msg.class).build();
            assertThat(queue.evictionPolicy()).contains("allkeys-lfu");
            DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(queue, job -> {}).build();
            assertThatThrownBy(worker::start).hasMessageContaining("allkeys-lfu");
            worker.close();
        }
    }

    @Test
    void start_infoAndConfigDenied_warnsOnceCouldNotCheck_andStarts(RedisServer server) {
        this.server = server;
        server.config("maxmemory-policy", "allkeys-lru");
        try (RedisClient app = appUser(server, "-@dangerous")) {
            DelayQueue<Msg> queue = DelayQueue.builder(app, "q8", Msg.class).build();
            assertThat(queue.evictionPolicy()).isEqualTo(Optional.empty());
            try (CapturedLog log = new CapturedLog();
                    DelayQueueWorker<Msg> worker =
                            DelayQueueWorker.builder(queue, job -> {}).build().start()) {
                assertThat(worker.isRunning()).isTrue();
                assertThat(log.warnings("maxmemory-policy")).hasSize(1);
                assertThat(log.warnings("'q8'", "could not check", "maxmemory-policy"))
                        .hasSize(1);
            }
        }
    }

    private static RedisClient appUser(RedisServer server, String denied) {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "app",
                    "reset",
                    "on",
                    ">s3cret",
                    "~deferlock:*",
                    "resetchannels",
                    "&deferlock:*",
                    "+@all",
                    "-@admin",
                    "+config|get",
                    denied);
        }
        return RedisClient.builder()
                .hostAndPort(server.hostAndPort())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                        .user("app")
                        .password("s3cret")
                        .build())
                .build();
    }
}
