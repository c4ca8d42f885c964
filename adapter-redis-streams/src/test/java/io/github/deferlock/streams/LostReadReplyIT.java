package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * An {@code XREADGROUP} whose reply is lost (the server handed the entry to this consumer, the client never saw
 * it) leaves the entry in this consumer's pending list. The adapter contract met it at a broker restart: the
 * entry came back only after {@code claimIdle}, after newer entries of its key (an order inversion). After a
 * failed read the consumer now reads its own pending entries after the newest one it saw, before new ones.
 */
@ExtendWith(RedisExtension.class)
final class LostReadReplyIT {

    @Test
    void entryWhoseReadReplyWasLost_runsNextInItsKeysOrder_notAfterClaimIdle(RedisServer server) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = RedisClient.builder()
                        .hostAndPort(proxy.hostAndPort())
                        .clientConfig(DefaultJedisClientConfig.builder()
                                .socketTimeoutMillis(1_000)
                                .blockingSocketTimeoutMillis(1_000) // Jedis's default 0 waits for ever
                                .build())
                        .build()) {
            ConflictAwareHandler<Order> handler = ConflictAwareHandler.builder("h", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .messageId(Order::id)
                    .handler(o -> ran.add(o.id()))
                    .onConflict(OnConflict.THROW)
                    .build();
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            producer.add(new Order("e0", "k"));
            try (StreamConsumer<Order> c = StreamConsumer.builder(viaProxy, "s", "g", Order.class, handler)
                    .consumerName("c")
                    .concurrency(1)
                    .block(Duration.ofMillis(300))
                    .claimIdle(Duration.ofSeconds(60)) // a reclaim cannot bring the entry back within the test
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> c.isRunning() && ran.contains("e0"));
                proxy.blackholeReplies(); // the next read hands e1 to "c", and its reply vanishes
                producer.add(new Order("e1", "k"));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> f.redis.xpending("s", "g").getTotal() == 1); // e1 delivered, unseen
                Thread.sleep(1_500); // past the client's 1 s socket timeout: the read fails (not a wait for a result)
                proxy.heal();
                producer.add(new Order("e2", "k"));
                await().atMost(Duration.ofSeconds(20)).alias("e2 runs").until(() -> ran.contains("e2"));
                await().atMost(Duration.ofSeconds(5)).until(() -> ran.contains("e1"));
            }
            assertThat(ran).as("the key's order, e1 not left to claimIdle").containsExactly("e0", "e1", "e2");
        }
    }
}
