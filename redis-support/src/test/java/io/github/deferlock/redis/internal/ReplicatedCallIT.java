package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/** {@link ReplicatedCall}: a script and {@code WAIT} on one pipeline, on a primary with one replica. */
final class ReplicatedCallIT {
    private static final Script SET = Script.of("set.lua", "redis.call('SET', KEYS[1], ARGV[1]) return 1");

    private static RedisServer primary;
    private static RedisServer replica;

    @BeforeAll
    static void start() {
        primary = RedisServer.start();
        replica = RedisServer.builder()
                .setting("replicaof", primary.host() + " " + primary.port())
                .start();
        try (Jedis p = primary.newConnection();
                Jedis r = replica.newConnection()) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> p.info("replication").contains("state=online")
                            && r.info("replication").contains("master_link_status:up"));
            // online is not yet acknowledging: ready once the replica acknowledges a write (a test asserting
            // WAIT's count saw 0 of 1 once, on Valkey, right after start)
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                p.set("ready", "1");
                return p.waitReplicas(1, 500) >= 1;
            });
            p.del("ready");
        }
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long waitCommands() {
        try (Jedis p = primary.newConnection()) {
            for (String line : p.info("commandstats").split("\\r?\\n")) {
                if (line.startsWith("cmdstat_wait:calls=")) {
                    return Long.parseLong(line.substring("cmdstat_wait:calls=".length(), line.indexOf(',')));
                }
            }
            return 0;
        }
    }

    @Test
    void oneReplicaAsked_waitCountsIt_andTheWriteIsOnTheReplica() {
        try (RedisClient redis = primary.newClient();
                Jedis onReplica = replica.newConnection()) {
            ReplicatedCall call = new ReplicatedCall(Topology.of(redis), 1, Duration.ofSeconds(5));

            ReplicatedCall.Replies replies = call.run(SET, List.of(b("k1")), List.of(b("v1")));

            assertThat(replies.reply()).isEqualTo(1L);
            assertThat(replies.acked()).isEqualTo(1L);
            // WAIT returned 1, so the replica has applied the write: it is readable there at once
            assertThat(onReplica.get("k1")).isEqualTo("v1");
        }
    }

    @Test
    void moreReplicasAskedThanExist_waitReportsTheCount_afterItsTimeout() {
        try (RedisClient redis = primary.newClient()) {
            ReplicatedCall call = new ReplicatedCall(Topology.of(redis), 2, Duration.ofMillis(300));
            long before = waitCommands();
            long started = System.nanoTime();

            ReplicatedCall.Replies replies = call.runAll(
                    SET, List.of(List.of(b("k2")), List.of(b("k3"))), List.of(List.of(b("a")), List.of(b("b"))));

            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(replies.replies()).containsExactly(1L, 1L);
            assertThat(replies.acked()).isEqualTo(1L);
            assertThat(tookMs).as("WAIT waited for its timeout").isGreaterThanOrEqualTo(290);
            assertThat(waitCommands()).as("one WAIT for the whole pipeline").isEqualTo(before + 1);
        }
    }

    @Test
    void noReplicasAsked_sendsNoWait() {
        try (RedisClient redis = primary.newClient()) {
            ReplicatedCall call = new ReplicatedCall(Topology.of(redis), 0, Duration.ZERO);
            long before = waitCommands();

            ReplicatedCall.Replies replies = call.run(SET, List.of(b("k4")), List.of(b("x")));

            assertThat(replies.reply()).isEqualTo(1L);
            assertThat(replies.acked()).isEqualTo(Long.MAX_VALUE);
            assertThat(waitCommands()).isEqualTo(before);
        }
    }

    @Test
    void onACluster_theCallGoesToTheKeysMaster() {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient()) {
            ReplicatedCall call = new ReplicatedCall(Topology.of(redis), 0, Duration.ZERO);
            for (String key : List.of("{a}k", "{b}k", "{c}k", "{d}k")) {
                assertThat(call.run(SET, List.of(b(key)), List.of(b(key))).reply())
                        .isEqualTo(1L);
                try (Jedis master = cluster.masterFor(key).newConnection()) {
                    assertThat(master.get(key)).isEqualTo(key);
                }
            }
        }
    }
}
