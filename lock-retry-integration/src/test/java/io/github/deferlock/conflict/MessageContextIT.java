package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Issue 26: a handler is handed the fencing token of its hold in its context, on whatever thread it runs — the
 * caller's, or the deferral worker's for a deferred message.
 */
@ExtendWith(RedisExtension.class)
final class MessageContextIT {

    @Test
    void theHandler_getsTheKeyAndTheFencingTokenOfItsHold_alsoWhenDeferred(RedisClient redis) throws Exception {
        List<MessageContext> seen = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                RedisLocks other = RedisLocks.builder(redis).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .build()) {
            ConflictAwareHandler<Msg> h = ConflictAwareHandler.builder("ctx", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .contextHandler((m, context) -> seen.add(context))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(1);

            assertThat(h.handle(new Msg("1", "a"))).isEqualTo(Outcome.PROCESSED);
            LockLease held = other.get("order:a").tryAcquire(Duration.ZERO).orElseThrow();
            assertThat(h.handle(new Msg("2", "a"))).isEqualTo(Outcome.DEFERRED);
            held.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 2);

            assertThat(seen).extracting(MessageContext::key).containsOnly("order:a");
            assertThat(seen.get(0).fencingToken()).isPositive().isLessThan(held.fencingToken());
            assertThat(seen.get(1).fencingToken()).isGreaterThan(held.fencingToken());
        }
    }
}
