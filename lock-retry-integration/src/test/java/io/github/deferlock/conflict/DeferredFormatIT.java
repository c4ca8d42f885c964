package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** A deferral stored by the previous version (DeferredMessage was a public record) still runs. */
@ExtendWith(RedisExtension.class)
final class DeferredFormatIT {

    @Test
    void aDeferralStoredByThePreviousVersion_runsWithItsHandler(RedisClient redis) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode stored = mapper.readTree("{\"handler\":\"orders\",\"key\":\"order:9\",\"messageId\":\"m9\","
                + "\"message\":{\"id\":\"m9\",\"order\":\"9\"},\"deferrals\":1,\"firstConflictMillis\":1700000000000}");
        DelayQueue<JsonNode> previous =
                DelayQueue.builder(redis, "old-deferred", JsonNode.class).build();
        previous.enqueue(Names.pair("orders", "m9"), stored, Duration.ZERO);

        List<Msg> ran = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("f:").build();
                Deferrals deferrals = Deferrals.builder(redis, "old-deferred").build()) {
            ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .messageId(Msg::id)
                    .handler(ran::add)
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> ran.size() == 1);
            assertThat(ran).containsExactly(new Msg("m9", "9"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
        }
    }
}
