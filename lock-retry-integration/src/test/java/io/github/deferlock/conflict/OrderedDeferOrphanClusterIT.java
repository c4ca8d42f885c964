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
 * {@link OrderedDeferOrphanIT}'s lost drain tokens on a 3-master {@link RedisCluster}: one held key per master,
 * each key's token lost (the queue's slot is on one master, the keys' parked work on all three); every key's
 * parked messages run in order with no new message.
 */
final class OrderedDeferOrphanClusterIT {

    private static final Duration LONG = Duration.ofSeconds(60);

    @Test
    void drainTokensLost_onEveryMaster_parkedMessagesRunInOrder_withNoNewMessage() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient();
                RedisClusterClient holderClient = cluster.newClient();
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build();
                RedisLocks holder =
                        RedisLocks.builder(holderClient).keyPrefix("o:").build();
                Deferrals deferrals = OrderedDeferOrphanIT.shortLease(redis, "orphan-cluster")) {
            List<String> keys = new ArrayList<>();
            Set<String> masters = new HashSet<>();
            for (int i = 0; keys.size() < RedisCluster.MASTERS; i++) {
                String key = "h" + i;
                if (masters.add(cluster.masterFor("o:{k:" + key + "}").toString())) {
                    keys.add(key);
                }
            }
            Map<String, List<String>> ran = new ConcurrentHashMap<>();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("seq", Msg.class, locks)
                    .key(m -> "k:" + m.order())
                    .messageId(Msg::id)
                    .handler(m -> ran.computeIfAbsent(m.order(), k -> new CopyOnWriteArrayList<>())
                            .add(m.id()))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            List<LockLease> held = new ArrayList<>();
            for (String key : keys) {
                held.add(holder.get("k:" + key).acquire(Duration.ZERO, LONG));
            }
            for (int i = 0; i < 5; i++) {
                for (String key : keys) {
                    assertThat(handler.handle(new Msg(key + "-" + i, key))).isEqualTo(Outcome.DEFERRED);
                }
            }
            for (String key : keys) {
                String token = redis.get("o:{k:" + key + "}:drainer");
                assertThat(deferrals.queue().cancel("drain:" + token))
                        .as("the drain token of %s, lost in a failover", key)
                        .isTrue();
            }
            assertThat(deferrals.queue().size(JobState.DUE)).isZero();
            deferrals.startWorker(2);
            held.forEach(LockLease::close);
            await().atMost(Duration.ofSeconds(30))
                    .alias("every key's parked messages run with no new message")
                    .until(() -> ran.values().stream().mapToInt(List::size).sum() >= 5 * keys.size());
            for (String key : keys) {
                assertThat(ran.get(key))
                        .as("key %s in arrival order, each once", key)
                        .containsExactly(key + "-0", key + "-1", key + "-2", key + "-3", key + "-4");
            }
            await().atMost(LONG)
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            for (String key : keys) {
                assertThat(redis.exists("o:{k:" + key + "}:parked")).isFalse();
            }
        }
    }
}
