package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamConsumerInfo;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Issue 26: consumers do not pile up in the group. {@code close()} deletes its own consumer when it has no pending
 * entry, and the sweep deletes idle consumers without pending entries (those of killed processes) but never one
 * that still holds an entry.
 */
@ExtendWith(RedisExtension.class)
final class ConsumerCleanupIT {

    private static List<String> consumers(Fixture f) {
        return f.redis.xinfoConsumers2("s", "g").stream()
                .map(StreamConsumerInfo::getName)
                .toList();
    }

    private static StreamEntryID readOne(Fixture f, String consumer) {
        List<Map.Entry<String, List<StreamEntry>>> got = f.redis.xreadGroup(
                "g",
                consumer,
                XReadGroupParams.xReadGroupParams().count(1),
                Map.of("s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
        return got.get(0).getValue().get(0).getID();
    }

    @Test
    void close_deletesItsConsumer_andTheSweepDeletesIdleOnesWithoutPendingEntries(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            producer.add(new Order("a", "k1"));
            producer.add(new Order("b", "k2"));
            f.redis.xgroupCreate("s", "g", new StreamEntryID(0, 0), true);
            // a killed process that had acked everything, and one killed while it held an entry
            f.redis.xack("s", "g", readOne(f, "killed-clean"));
            readOne(f, "killed-holding");
            StreamConsumer<Order> c = f.consumer("s")
                    .block(Duration.ofMillis(50))
                    .claimIdle(Duration.ofMinutes(10)) // the held entry stays with its consumer
                    .claimInterval(Duration.ofMillis(100))
                    .deleteIdleConsumersAfter(Duration.ofMillis(300))
                    .build()
                    .start();
            String name = c.consumerName();
            await().atMost(Duration.ofSeconds(30)).until(() -> !consumers(f).contains("killed-clean"));
            assertThat(consumers(f)).contains("killed-holding");
            producer.add(new Order("c", "k3"));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> f.handledIds() == 1 && consumers(f).contains(name));
            assertThat(c.close(Duration.ofSeconds(10))).isTrue();
            assertThat(consumers(f)).containsExactly("killed-holding");
            assertThat(c.close(Duration.ofSeconds(10))).isTrue(); // a second close says what the first said
        }
    }
}
