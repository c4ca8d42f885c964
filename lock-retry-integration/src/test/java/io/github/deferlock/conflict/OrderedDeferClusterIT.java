package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClusterClient;

/**
 * Ordered DEFER on a 3-master {@link RedisCluster}: each key's parked work lives in its lock's slot, so keys on
 * every master park, drain after their release and keep their order.
 */
final class OrderedDeferClusterIT {

    private static final Duration LONG = Duration.ofSeconds(60);

    @Test
    void hotKeysOnEveryMaster_runInArrivalOrderAfterTheirRelease() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient();
                RedisClusterClient holderClient = cluster.newClient();
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build();
                RedisLocks holder =
                        RedisLocks.builder(holderClient).keyPrefix("o:").build();
                Deferrals deferrals = Deferrals.builder(redis, "ordered-cluster")
                        .mode(DeferMode.ORDERED)
                        .build()) {
            // one hot key per master, and 9 cold keys
            List<String> hot = new ArrayList<>();
            Set<String> hotMasters = new HashSet<>();
            for (int i = 0; hot.size() < RedisCluster.MASTERS; i++) {
                String key = "k:h" + i;
                String master = cluster.masterFor("o:{" + key + "}").toString();
                if (hotMasters.add(master)) {
                    hot.add(key);
                }
            }
            List<String> keys = new ArrayList<>(hot);
            for (int i = 0; i < 9; i++) {
                keys.add("k:c" + i);
            }
            Map<String, List<Integer>> ran = new ConcurrentHashMap<>();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("seq", Msg.class, locks)
                    .key(Msg::order)
                    .messageId(Msg::id)
                    .handler(m -> ran.computeIfAbsent(m.order(), k -> new CopyOnWriteArrayList<>())
                            .add(Integer.parseInt(m.id().substring(m.id().lastIndexOf('-') + 1))))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(4);
            List<LockLease> held = new ArrayList<>();
            for (String key : hot) {
                held.add(holder.get(key).acquire(Duration.ZERO, LONG));
            }
            int perKey = 20;
            for (int i = 0; i < perKey / 2; i++) {
                for (String key : keys) {
                    handler.handle(new Msg(key + "-" + i, key));
                }
            }
            for (String key : hot) {
                assertThat(redis.llen("o:{" + key + "}:parked"))
                        .as("%s parked while held", key)
                        .isEqualTo(perKey / 2);
            }
            held.forEach(LockLease::close);
            for (int i = perKey / 2; i < perKey; i++) {
                for (String key : keys) {
                    handler.handle(new Msg(key + "-" + i, key));
                }
            }
            await().atMost(LONG)
                    .until(() -> ran.values().stream().mapToInt(List::size).sum() == keys.size() * perKey);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                expected.add(i);
            }
            for (String key : keys) {
                assertThat(ran.get(key))
                        .as("key %s in arrival order, each once", key)
                        .containsExactlyElementsOf(expected);
            }
            await().atMost(LONG)
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            for (String key : hot) {
                assertThat(redis.exists("o:{" + key + "}:parked")).isFalse();
            }
        }
    }
}
