package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * Issue 14, defect 6 (queue part) on Redis Cluster: the queue's master is reached through a fault proxy (the
 * client maps its address to the proxy's), its replies are lost once, and the cluster client's executor and our
 * retry resend the script; each resend must report what the first try did.
 */
final class ClusterLostReplyIT {
    private static final String QUEUE = "lost-c";
    private static RedisCluster cluster;
    private static RedisClusterClient direct;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
        direct = cluster.newClient();
    }

    @AfterAll
    static void stopCluster() {
        if (direct != null) {
            direct.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A cluster client that reaches the queue's master through {@code proxy}, with 500 ms read timeouts. */
    private static RedisClusterClient viaProxy(RedisServer master, FaultProxy proxy) {
        HostAndPort masterAddress = master.hostAndPort();
        return RedisClusterClient.builder()
                .nodes(cluster.seeds())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(1000)
                        .socketTimeoutMillis(500)
                        .hostAndPortMapper(hp -> hp.getPort() == masterAddress.getPort() ? proxy.hostAndPort() : hp)
                        .build())
                .maxAttempts(5)
                .build();
    }

    private static <R> R withLostReply(FaultProxy proxy, Supplier<R> call, BooleanSupplier applied) throws Exception {
        proxy.blackholeReplies();
        CompletableFuture<R> result = CompletableFuture.supplyAsync(call);
        try {
            await().atMost(Duration.ofSeconds(10)).until(applied::getAsBoolean);
        } finally {
            proxy.heal();
        }
        return result.get(60, TimeUnit.SECONDS);
    }

    @Test
    void clusterResends_claimAckCancelEnqueue_eachReportsItsOwnEarlierSuccess() throws Exception {
        RedisServer master = cluster.masterFor(QueueKeysForTest.jobs(QUEUE));
        try (FaultProxy proxy = FaultProxy.to(master);
                RedisClusterClient client = viaProxy(master, proxy)) {
            DelayQueue<Msg> d =
                    DelayQueue.builder(direct, QUEUE, Msg.class).maxAttempts(1).build();
            DelayQueue<Msg> p =
                    DelayQueue.builder(client, QUEUE, Msg.class).maxAttempts(1).build();
            // every script once, so no NOSCRIPT reply is blackholed; the client's pool to the master warmed
            p.enqueue("warm", new Msg("w", 0), Duration.ZERO);
            p.ack(p.claim(1).get(0));
            p.cancel("warm");

            String id = d.enqueue(new Msg("once", 1)).id();
            List<Job<Msg>> claimed = withLostReply(proxy, () -> p.claim(1), () -> d.get(id)
                    .map(j -> j.state() == JobState.IN_FLIGHT)
                    .orElse(false));
            assertThat(claimed).extracting(Job::id).containsExactly(id);
            assertThat(claimed.get(0).attempts()).isEqualTo(1);

            boolean acked = withLostReply(
                    proxy, () -> p.ack(claimed.get(0)), () -> d.get(id).isEmpty());
            assertThat(acked).as("resent ack").isTrue();

            EnqueueResult enqueued = withLostReply(
                    proxy, () -> p.enqueue("order-7", new Msg("o", 7), Duration.ofMinutes(5)), () -> d.get("order-7")
                            .isPresent());
            assertThat(enqueued.duplicate()).as("resent enqueue").isFalse();

            boolean cancelled = withLostReply(
                    proxy, () -> p.cancel("order-7"), () -> d.get("order-7").isEmpty());
            assertThat(cancelled).as("resent cancel").isTrue();
            assertThat(d.size(JobState.DEAD)).isZero();
        }
    }

    /** The queue's key names, as docs/queue-keys.md gives them. */
    private static final class QueueKeysForTest {
        static String jobs(String queue) {
            return "deferlock:dq:{" + queue + "}:jobs";
        }
    }
}
