package io.github.deferlock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/** The audit stream ({@link Inspector#audit}, {@link Inspector#auditTrail}) on a real redis-server. */
@ExtendWith(RedisExtension.class)
final class AuditTrailIT {

    @Test
    void audit_storesWithTheServersTime_andListsNewestFirst(RedisServer server, RedisClient redis) {
        Inspector inspector = Inspector.builder(redis).build();
        assertThat(inspector.auditTrail(10)).isEmpty();
        long before;
        try (Jedis c = server.newConnection()) {
            before = Long.parseLong(c.time().get(0)) * 1000;
        }
        AuditRecord first = inspector.audit("cli", "alice", "alice@h1", "pause", "emails", List.of(), "done");
        AuditRecord second = inspector.audit(
                "dashboard", "token", "10.0.0.1", "purge", "q\nx", List.of("e1", "e\u001b[31m2"), "done 2, not dead 0");
        assertThat(first.at().toEpochMilli()).isGreaterThanOrEqualTo(before);
        assertThat(redis.xlen(Inspector.AUDIT_KEY)).isEqualTo(2);

        assertThat(inspector.auditTrail(10)).containsExactly(second, first);
        assertThat(inspector.auditTrail(1)).containsExactly(second);
        assertThat(second.ids()).containsExactly("e1", "e\u001b[31m2");
        assertThat(second.logLine())
                .isEqualTo("action=purge actor=token from=10.0.0.1 queue=q\\nx ids=[e1, e\\u001B[31m2]"
                        + " outcome=done 2, not dead 0")
                .doesNotContain("\n");
        assertThatThrownBy(() -> inspector.auditTrail(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
    }

    @Test
    void audit_keepsIdsWithinTheirBudget_andCountsTheRest(RedisClient redis) {
        Inspector inspector = Inspector.builder(redis).build();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            ids.add("j".repeat(500) + i); // 500 × ~503 bytes, far over the budget
        }
        AuditRecord r = inspector.audit("cli", "a", "a@h", "requeue", "q", ids, "x".repeat(5000));
        assertThat(r.idCount()).isEqualTo(500);
        assertThat(r.ids()).hasSize(4).containsExactlyElementsOf(ids.subList(0, 4));
        assertThat(r.outcome()).hasSize(Inspector.AUDIT_TEXT_CHARS);
        assertThat(inspector.auditTrail(1)).containsExactly(r);
        assertThat(r.logLine()).contains("(+496 more)");
    }

    @Test
    void audit_isCappedNearItsLimit(RedisClient redis) {
        Inspector inspector = Inspector.builder(redis).build();
        for (int i = 0; i < Inspector.AUDIT_MAX_LEN + 500; i++) {
            inspector.audit("cli", "a", "a@h", "pause", "q" + i, List.of(), "done");
        }
        // MAXLEN ~ trims whole radix-tree nodes (100 entries by default): a few more than the limit may stay
        assertThat(redis.xlen(Inspector.AUDIT_KEY))
                .isBetween((long) Inspector.AUDIT_MAX_LEN, Inspector.AUDIT_MAX_LEN + 200L);
        assertThat(inspector.auditTrail(1).get(0).queue()).isEqualTo("q" + (Inspector.AUDIT_MAX_LEN + 499));
    }

    @Test
    void cluster_oneKey_writesAndReads() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient()) {
            Inspector inspector = Inspector.builder(redis).build();
            AuditRecord r = inspector.audit("cli", "a", "a@h", "resume", "orders", List.of(), "done");
            assertThat(inspector.auditTrail(5)).containsExactly(r);
        }
    }

    @Test
    void aclRecipe_coversTheAuditStream(RedisServer server) throws Exception {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "app",
                    "reset",
                    "on",
                    ">s3cret",
                    "~lock:*",
                    "~deferlock:*",
                    "resetchannels",
                    "&lock:*",
                    "&deferlock:*",
                    "+@all",
                    "-@admin",
                    "-@dangerous");
        }
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .user("app")
                .password("s3cret")
                .build();
        try (RedisClient app = RedisClient.builder()
                .hostAndPort(server.hostAndPort())
                .clientConfig(config)
                .build()) {
            Inspector inspector = Inspector.builder(app).build();
            AuditRecord r = inspector.audit("cli", "a", "a@h", "pause", "q", List.of(), "done");
            assertThat(inspector.auditTrail(1)).containsExactly(r);
        } finally {
            try (Jedis admin = server.newConnection()) {
                admin.aclDelUser("app");
            }
        }
    }
}
