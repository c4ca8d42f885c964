package io.github.deferlock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/** The registry and the read model on a Redis Cluster, and under the documented ACL recipe (issue 17). */
final class RegistryClusterAndAclIT {

    record Msg(String text) {}

    @Test
    void cluster_registryStatsAndLocksAcrossMasters() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "orders", Msg.class).build();
            q.enqueue("a", new Msg("x"), Duration.ofHours(1));
            List<LockLease> held = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 12; i++) { // 12 names: every master of 3 holds some, with overwhelming odds
                names.add("n" + i);
                held.add(locks.get("n" + i).acquire(Duration.ZERO));
            }
            assertThat(names.stream()
                            .map(n -> cluster.masterFor("lock:{" + n + "}"))
                            .distinct())
                    .hasSize(RedisCluster.MASTERS);
            try (DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, job -> {}).build().start()) {
                Inspector inspector = Inspector.builder(redis).build();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> inspector.registered().size() == 2);
                assertThat(inspector.registered())
                        .extracting(RegistryEntry::kind, RegistryEntry::name)
                        .containsExactly(
                                org.assertj.core.groups.Tuple.tuple(EntryKind.QUEUE, "orders"),
                                org.assertj.core.groups.Tuple.tuple(EntryKind.LOCK_PREFIX, "lock:"));
                assertThat(inspector.queueStats("orders").waiting()).isEqualTo(1);
                assertThat(inspector.job("orders", "a").orElseThrow().state()).isEqualTo(JobState.DUE);
                LockPage page = inspector.locks("lock:", 100);
                assertThat(page.locks()).extracting(LockView::name).containsExactlyInAnyOrderElementsOf(names);
                assertThat(page.locks()).allSatisfy(l -> assertThat(l.held()).isTrue());
                assertThat(worker.toString()).contains("orders");
            }
            for (LockLease l : held) {
                l.close();
            }
        }
    }

    @Test
    void aclRecipe_workersAndLocksAnnounceThemselves_withoutDeniedCommands() throws Exception {
        try (RedisServer server = RedisServer.start()) {
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
                admin.aclLogReset();
            }
            DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                    .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                    .user("app")
                    .password("s3cret")
                    .build();
            try (RedisClient redis = RedisClient.builder()
                            .hostAndPort(server.hostAndPort())
                            .clientConfig(config)
                            .build();
                    RedisLocks locks = RedisLocks.builder(redis).build();
                    DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                                    DelayQueue.builder(redis, "acl", Msg.class).build(), job -> {})
                            .build()
                            .start()) {
                try (LockLease lease = locks.get("x").acquire(Duration.ZERO)) {
                    assertThat(lease.isHeld()).isTrue();
                }
                Inspector inspector = Inspector.builder(redis).build();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> inspector.registered().size() == 2);
                assertThat(worker.toString()).contains("acl");
            }
            try (Jedis admin = server.newConnection()) {
                // only the start-up eviction checks (INFO, CONFIG GET) of RedisLocks and the worker
                assertThat(admin.aclLog()).as("commands the ACL denied").allSatisfy(e -> assertThat(e.getObject())
                        .isIn("info", "config|get", "config")); // Redis 6.2 logs a denied CONFIG GET as "config"
                admin.aclDelUser("app");
            }
        }
    }
}
