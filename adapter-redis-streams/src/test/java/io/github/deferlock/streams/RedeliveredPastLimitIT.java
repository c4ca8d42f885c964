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
import redis.clients.jedis.params.XClaimParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Issue 26 review: an entry whose {@code XPENDING} delivery count is past {@code maxAttempts} — consumers that
 * crash-looped or let go of it while Redis was down raise that count, its handler never failed — is claimed and
 * handled, not dead-lettered unseen.
 */
@ExtendWith(RedisExtension.class)
final class RedeliveredPastLimitIT {

    @Test
    void anEntryDeliveredMoreOftenThanMaxAttempts_isStillHandled(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO).withDeferralWorker()) {
            StreamProducer.builder(f.redis, "s").build().add(new Order("a", "k1"));
            f.redis.xgroupCreate("s", "g", new StreamEntryID(0, 0), true);
            List<Map.Entry<String, List<StreamEntry>>> got = f.redis.xreadGroup(
                    "g",
                    "crashed",
                    XReadGroupParams.xReadGroupParams().count(1),
                    Map.of("s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            StreamEntryID id = got.get(0).getValue().get(0).getID();
            // ten deliveries to consumers that died without their handler failing
            f.redis.xclaim("s", "g", "crashed", 0, XClaimParams.xClaimParams().retryCount(10), id);
            assertThat(f.redis.xpending("s", "g").getTotal()).isEqualTo(1);

            StreamConsumer<Order> c = f.consumer("s")
                    .maxAttempts(3)
                    .block(Duration.ofMillis(50))
                    .claimIdle(Duration.ofMillis(200))
                    .claimInterval(Duration.ofMillis(100))
                    .build()
                    .start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> f.handledIds() == 1 && f.pending("s") == 0);
                assertThat(f.recorder.deadLettered).hasValue(0);
                assertThat(f.redis.xlen("s:dead")).isZero();
            } finally {
                assertThat(c.close(Duration.ofSeconds(10))).isTrue();
            }
        }
    }
}
