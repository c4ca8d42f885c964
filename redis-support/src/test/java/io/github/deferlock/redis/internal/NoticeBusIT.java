package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link NoticeBus} against real servers: notices arrive, the subscription comes back after the server
 * restarts (plain and sharded), and the pooled connection it used carries no stray reply afterwards.
 */
final class NoticeBusIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long subscribers(Jedis admin, String channel) {
        Map<String, Long> counts = admin.pubsubNumSub(channel);
        return counts.getOrDefault(channel, 0L);
    }

    /**
     * Plain pub/sub on a cluster (Redis before 7.0) is broadcast to every node, so the subscriber may sit on any
     * node, not only on the master of the channel's slot: its subscriptions summed over the nodes that answer.
     */
    private static long subscribersOnAnyNode(RedisCluster cluster, String channel) {
        long total = 0;
        for (RedisServer node : cluster.nodes()) {
            try (Jedis admin = node.newConnection()) {
                total += subscribers(admin, channel);
            } catch (RuntimeException down) {
                // a node that is restarting holds no subscription
            }
        }
        return total;
    }

    private static long shardSubscribers(Jedis admin, String channel) {
        Map<String, Long> counts = admin.pubsubShardNumSub(channel);
        return counts.getOrDefault(channel, 0L);
    }

    /** A client whose pool has one connection: a reply left on it would be read by the next command. */
    private static RedisClient onePooledConnection(RedisServer server) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(1);
        pool.setMaxIdle(1);
        return RedisClient.builder()
                .hostAndPort(server.hostAndPort())
                .poolConfig(pool)
                .build();
    }

    @Test
    void plain_noticeArrives_andUnwatchingTheLastChannelLeavesAUsablePooledConnection() {
        try (RedisServer server = RedisServer.start();
                Jedis admin = server.newConnection();
                RedisClient redis = onePooledConnection(server);
                NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
            AtomicInteger heard = new AtomicInteger();
            NoticeBus.Subscription sub = bus.watch(b("{k}:ch"), heard::incrementAndGet);
            await().atMost(WAIT).until(() -> subscribers(admin, "{k}:ch") == 1);
            int afterSubscribe = heard.get();
            assertThat(afterSubscribe)
                    .as("the confirmed subscription wakes the listener")
                    .isPositive();

            admin.publish("{k}:ch", "x");
            await().atMost(WAIT).until(() -> heard.get() > afterSubscribe);

            sub.close();
            await().atMost(WAIT).until(() -> subscribers(admin, "{k}:ch") == 0);
            // the subscription's connection is back in the pool of one: every reply must be its own command's
            for (int i = 0; i < 20; i++) {
                redis.set("n", Integer.toString(i));
                assertThat(redis.get("n")).isEqualTo(Integer.toString(i));
            }
        }
    }

    @Test
    void plain_manyChannels_shareOneConnection_andAComeAndGoLeavesNoStrayReply() {
        try (RedisServer server = RedisServer.start();
                Jedis admin = server.newConnection();
                RedisClient redis = onePooledConnection(server);
                NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
            for (int round = 0; round < 5; round++) {
                NoticeBus.Subscription a = bus.watch(b("a"), () -> {});
                NoticeBus.Subscription c = bus.watch(b("c"), () -> {});
                await().atMost(WAIT).until(() -> subscribers(admin, "a") == 1 && subscribers(admin, "c") == 1);
                assertThat(admin.clientList().lines().filter(l -> l.contains(" sub=2 ")))
                        .hasSize(1);
                a.close();
                c.close();
                await().atMost(WAIT).until(() -> subscribers(admin, "a") + subscribers(admin, "c") == 0);
                assertThat(redis.ping()).isEqualTo("PONG");
                assertThat(redis.incr("rounds")).isEqualTo(round + 1L);
            }
        }
    }

    @Test
    void plain_afterAServerRestart_resubscribes_andWakesTheListener() {
        try (RedisServer server = RedisServer.start();
                RedisClient redis = server.newClient();
                NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
            AtomicInteger heard = new AtomicInteger();
            bus.watch(b("{k}:released"), heard::incrementAndGet);
            try (Jedis admin = server.newConnection()) {
                await().atMost(WAIT).until(() -> subscribers(admin, "{k}:released") == 1);
            }

            server.kill();
            int beforeRestart = heard.get();
            server.restart();

            try (Jedis admin = server.newConnection()) {
                await().atMost(WAIT).until(() -> subscribers(admin, "{k}:released") == 1);
                assertThat(heard.get())
                        .as(
                                "the lost connection and the new subscription wake the listener: notices may have been missed")
                        .isGreaterThan(beforeRestart);
                int before = heard.get();
                admin.publish("{k}:released", "t");
                await().atMost(WAIT).until(() -> heard.get() > before);
            }
        }
    }

    @Test
    void sharded_onACluster_noticeArrives_andResubscribesAfterItsMasterRestarts() {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient();
                NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
            String channel = "{order:7}:wake";
            boolean sharded = Topology.of(redis).shardedPubSub().orElseThrow();
            AtomicInteger heard = new AtomicInteger();
            bus.watch(b(channel), heard::incrementAndGet);
            RedisServer master = cluster.masterFor(channel);
            try (Jedis admin = master.newConnection()) {
                await().atMost(WAIT)
                        .until(() ->
                                (sharded ? shardSubscribers(admin, channel) : subscribersOnAnyNode(cluster, channel))
                                        == 1);
            }
            assertThat(bus.transportForTests()).get().isInstanceOf(sharded ? ShardedNotices.class : PlainNotices.class);
            int before = heard.get();
            if (sharded) {
                redis.spublish(b(channel), b("1"));
            } else {
                redis.publish(b(channel), b("1"));
            }
            await().atMost(WAIT).until(() -> heard.get() > before);

            master.kill();
            master.restart();
            cluster.awaitHealthy(Duration.ofSeconds(30));

            RedisServer again = cluster.masterFor(channel);
            try (Jedis admin = again.newConnection()) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                (sharded ? shardSubscribers(admin, channel) : subscribersOnAnyNode(cluster, channel))
                                        == 1);
            }
            int afterRestart = heard.get();
            await().atMost(WAIT).untilAsserted(() -> {
                if (sharded) {
                    redis.spublish(b(channel), b("2"));
                } else {
                    redis.publish(b(channel), b("2"));
                }
                assertThat(heard.get()).isGreaterThan(afterRestart);
            });
        }
    }

    @Test
    void plain_withAnAnchor_keepsOneConnectionBetweenListeners_untilClosed() {
        try (RedisServer server = RedisServer.start();
                Jedis admin = server.newConnection();
                RedisClient redis = onePooledConnection(server)) {
            NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices", b("p:subscriber:1"));
            NoticeBus.Subscription first = bus.watch(b("p:ch"), () -> {});
            await().atMost(WAIT).until(() -> subscribers(admin, "p:ch") == 1);
            String subscriberId = subscriberClientIds(admin);

            first.close();
            await().atMost(WAIT).until(() -> subscribers(admin, "p:ch") == 0);
            assertThat(subscribers(admin, "p:subscriber:1"))
                    .as("the anchor holds the connection")
                    .isEqualTo(1);
            AtomicInteger heard = new AtomicInteger();
            bus.watch(b("p:ch"), heard::incrementAndGet);
            await().atMost(WAIT).until(() -> subscribers(admin, "p:ch") == 1);
            assertThat(subscriberClientIds(admin)).as("the same connection").isEqualTo(subscriberId);

            bus.close();
            await().atMost(WAIT).until(() -> subscribers(admin, "p:subscriber:1") + subscribers(admin, "p:ch") == 0);
            assertThat(redis.ping()).as("no stray reply on the pool of one").isEqualTo("PONG");
        }
    }

    private static String subscriberClientIds(Jedis admin) {
        return String.join(
                ",",
                admin.clientList()
                        .lines()
                        .filter(l -> !l.contains(" sub=0 "))
                        .map(l -> l.substring(0, l.indexOf(' ')))
                        .toList());
    }

    @Test
    void closedBus_subscribesNothing() {
        try (RedisServer server = RedisServer.start();
                Jedis admin = server.newConnection();
                RedisClient redis = server.newClient()) {
            NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices");
            bus.watch(b("x"), () -> {});
            await().atMost(WAIT).until(() -> subscribers(admin, "x") == 1);

            bus.close();
            await().atMost(WAIT).until(() -> subscribers(admin, "x") == 0);
            bus.watch(b("y"), () -> {});
            assertThat(subscribers(admin, "y")).isZero();
        }
    }

    /**
     * Starts a thread per key that runs {@code SET key i} then {@code GET key} until {@code stop}, counting each
     * round in {@code done} and adding to {@code wrong} every reply that is not its own command's (or that threw).
     */
    private static List<Thread> replyCheckers(
            UnifiedJedis redis, List<String> keys, AtomicBoolean stop, AtomicLong done, Queue<String> wrong) {
        List<Thread> workers = new ArrayList<>();
        for (String key : keys) {
            Thread w = new Thread(() -> {
                for (long i = 0; !stop.get(); i++) {
                    try {
                        String v = Long.toString(i);
                        redis.set(key, v);
                        String got = redis.get(key);
                        if (!v.equals(got)) {
                            wrong.add("GET " + key + " after SET " + v + " read " + got);
                        }
                    } catch (RuntimeException e) {
                        wrong.add(key + ": " + e);
                    }
                    done.incrementAndGet();
                }
            });
            w.start();
            workers.add(w);
        }
        return workers;
    }

    /** The ids of the clients connected to {@code admin}'s node that hold a sharded subscription. */
    private static Set<String> shardSubscriberIds(Jedis admin) {
        Set<String> ids = new HashSet<>();
        for (String line : admin.clientList().split("\n")) {
            if (line.contains(" ssub=") && !line.contains(" ssub=0 ")) {
                ids.add(line.substring(line.indexOf("id=") + 3, line.indexOf(' ')));
            }
        }
        return ids;
    }

    /** The ids of every client connected to {@code admin}'s node. */
    private static Set<String> clientIds(Jedis admin) {
        Set<String> ids = new HashSet<>();
        for (String line : admin.clientList().split("\n")) {
            ids.add(line.substring(line.indexOf("id=") + 3, line.indexOf(' ')));
        }
        return ids;
    }

    /**
     * A slot moves to another master without the client knowing; a channel of that slot is then watched, so
     * its {@code SSUBSCRIBE} goes (by the stale slot map) to the old master's subscription connection, which
     * is still subscribed to a channel of a slot that stayed, and is answered by {@code MOVED}. That ends the
     * subscription's reading loop with the connection still subscribed: it must be closed, never handed back
     * to the pool, while other threads run ordinary commands on that master through the same client (each
     * must get its own reply), and both channels are subscribed again, each on its slot's master. Regression:
     * the connection went back to the pool still subscribed, so the pool's next user could read a notice or a
     * subscription reply as its own (the soak's Cluster seed 38: lock scripts read another reply, a
     * {@code ClassCastException}, and a job was handed out twice under one receipt).
     */
    @Test
    void sharded_ssubscribeAnsweredByMoved_theSubscribedConnectionIsClosedNotPooled() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
                RedisClusterClient redis = cluster.newClient();
                NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
            assumeTrue(Topology.of(redis).shardedPubSub().orElseThrow(), "sharded pub/sub needs Redis 7.0+");
            String stays = "{b}:wake";
            RedisServer old = cluster.masterFor(stays);
            String moves = null;
            for (int i = 0; moves == null; i++) {
                String candidate = "{a" + i + "}:wake";
                if (cluster.masterFor(candidate).port() == old.port()
                        && RedisCluster.slot(candidate) != RedisCluster.slot(stays)) {
                    moves = candidate;
                }
            }
            String movesChannel = moves;
            int movedSlot = RedisCluster.slot(moves);
            RedisServer target = cluster.masters().stream()
                    .filter(m -> m.port() != old.port())
                    .findFirst()
                    .orElseThrow();

            AtomicInteger heardStays = new AtomicInteger();
            bus.watch(b(stays), heardStays::incrementAndGet);
            Set<String> subscribedBefore;
            try (Jedis admin = old.newConnection()) {
                await().atMost(WAIT).until(() -> shardSubscribers(admin, stays) == 1);
                subscribedBefore = shardSubscriberIds(admin);
            }
            assertThat(subscribedBefore).hasSize(1);

            // ordinary commands on the old master (keys of the slot that stays), each checking its own reply
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong done = new AtomicLong();
            Queue<String> wrong = new ConcurrentLinkedQueue<>();
            List<Thread> workers = replyCheckers(redis, List.of("{b}:n0", "{b}:n1"), stop, done, wrong);
            try {
                // the slot (empty) moves to the target; the client's slot map still names the old master
                String targetId;
                try (Jedis o = old.newConnection();
                        Jedis t = target.newConnection()) {
                    targetId = t.clusterMyId();
                    t.clusterSetSlotImporting(movedSlot, o.clusterMyId());
                    o.clusterSetSlotMigrating(movedSlot, targetId);
                    t.clusterSetSlotNode(movedSlot, targetId);
                    o.clusterSetSlotNode(movedSlot, targetId);
                }
                for (RedisServer m : cluster.masters()) {
                    if (m.port() != old.port() && m.port() != target.port()) {
                        try (Jedis j = m.newConnection()) {
                            j.clusterSetSlotNode(movedSlot, targetId);
                        }
                    }
                }
                await().atMost(WAIT)
                        .until(() -> cluster.masterForSlot(movedSlot).port() == target.port());

                bus.watch(b(moves), () -> {});
                try (Jedis onTarget = target.newConnection();
                        Jedis onOld = old.newConnection()) {
                    await().atMost(WAIT)
                            .until(() -> shardSubscribers(onTarget, movesChannel) == 1
                                    && shardSubscribers(onOld, stays) == 1);
                    assertThat(clientIds(onOld))
                            .as("the connection subscribed when MOVED came is closed, not handed back to the pool")
                            .doesNotContainAnyElementsOf(subscribedBefore);
                    long after = done.get();
                    await().atMost(WAIT).until(() -> done.get() > after + 300);
                }
            } finally {
                stop.set(true);
                for (Thread w : workers) {
                    w.join(WAIT.toMillis());
                }
            }
            assertThat(wrong).as("replies read by the wrong command").isEmpty();
            int before = heardStays.get();
            redis.spublish(b(stays), b("1"));
            await().atMost(WAIT).until(() -> heardStays.get() > before);
        }
    }

    /**
     * Redis refuses a {@code SUBSCRIBE} sent on a connection that is already subscribed (here an ACL that
     * allows the channels {@code allowed:*} only: {@code NOPERM}). That error ends the subscription's reading
     * loop with the connection still subscribed to the allowed channel: it must be closed, never handed back to
     * the pool, while other threads run ordinary commands through the same client (each must get its own
     * reply) and notices keep coming on the allowed channel. Once the refused channel is no longer watched,
     * the allowed one is subscribed again and heard. Regression: the connection went back to the pool still
     * subscribed, the same defect as {@link #sharded_ssubscribeAnsweredByMoved_theSubscribedConnectionIsClosedNotPooled}
     * on plain pub/sub.
     */
    @Test
    void plain_subscribeRefusedByAcl_theSubscribedConnectionIsClosedNotPooled() throws Exception {
        try (RedisServer server = RedisServer.start();
                Jedis admin = server.newConnection()) {
            admin.aclSetUser("notices", "on", ">secret", "~*", "+@all", "resetchannels", "&allowed:*");
            ConnectionPoolConfig pool = new ConnectionPoolConfig();
            pool.setMaxTotal(3);
            pool.setMaxIdle(3);
            try (RedisClient redis = RedisClient.builder()
                            .hostAndPort(server.hostAndPort())
                            .clientConfig(DefaultJedisClientConfig.builder()
                                    .user("notices")
                                    .password("secret")
                                    .build())
                            .poolConfig(pool)
                            .build();
                    NoticeBus bus = new NoticeBus(Topology.of(redis), "test-notices")) {
                AtomicInteger heard = new AtomicInteger();
                bus.watch(b("allowed:a"), heard::incrementAndGet);
                await().atMost(WAIT).until(() -> subscribers(admin, "allowed:a") == 1);
                String subscribedBefore = subscriberClientIds(admin);
                assertThat(subscribedBefore).doesNotContain(",");

                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong done = new AtomicLong();
                Queue<String> wrong = new ConcurrentLinkedQueue<>();
                List<Thread> workers = replyCheckers(redis, List.of("n0", "n1"), stop, done, wrong);
                Thread publisher = new Thread(() -> {
                    try (Jedis p = server.newConnection()) {
                        while (!stop.get()) {
                            p.publish("allowed:a", "x");
                        }
                    }
                });
                publisher.start();
                NoticeBus.Subscription refused;
                try {
                    refused = bus.watch(b("denied:b"), () -> {});
                    await().atMost(WAIT)
                            .alias("the connection subscribed when NOPERM came is closed, not handed back to the pool")
                            .until(() ->
                                    admin.clientList().lines().noneMatch(l -> l.startsWith(subscribedBefore + " ")));
                    long after = done.get();
                    await().atMost(WAIT).until(() -> done.get() > after + 300);
                } finally {
                    stop.set(true);
                    for (Thread w : workers) {
                        w.join(WAIT.toMillis());
                    }
                    publisher.join(WAIT.toMillis());
                }
                assertThat(wrong).as("replies read by the wrong command").isEmpty();

                refused.close();
                await().atMost(WAIT).until(() -> subscribers(admin, "allowed:a") == 1);
                int before = heard.get();
                admin.publish("allowed:a", "y");
                await().atMost(WAIT).until(() -> heard.get() > before);
            }
        }
    }
}
