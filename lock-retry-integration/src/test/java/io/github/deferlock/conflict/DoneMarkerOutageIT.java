package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * A handler that finished just as Redis went away: its done marker must still be written once Redis answers,
 * or the message runs twice. The adapter contract met this (issue 26: a handling cut by a 1 s or 5 s outage ran
 * again): the marker write failed, the unlock failed, and the retry ran the handler again after the lease.
 */
@ExtendWith(RedisExtension.class)
final class DoneMarkerOutageIT {

    @Test
    void redisGoneRightAfterTheHandler_theDoneMarkerWaitsForIt_andTheMessageRunsOnce(RedisServer server)
            throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient redis =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build();
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build();
                Deferrals deferrals = Deferrals.builder(redis, "marker").build()) {
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("h", Msg.class, locks)
                    .key(m -> "k:" + m.order())
                    .messageId(Msg::id)
                    .handler(m -> {
                        ran.add(m.id());
                        if (ran.size() == 1) {
                            proxy.refuse(); // Redis goes away as the handler ends: the done marker cannot be written
                            Thread healer = new Thread(() -> {
                                try {
                                    Thread.sleep(1_500); // the outage's length, not a wait for a result
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                proxy.heal();
                            });
                            healer.setDaemon(true);
                            healer.start();
                        }
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            assertThat(handler.handle(new Msg("a", "1")))
                    .as("the handling waits out the outage to write its done marker, then returns")
                    .isEqualTo(Outcome.PROCESSED);
            assertThat(handler.handle(new Msg("a", "1")))
                    .as("the source's redelivery is recognised")
                    .isEqualTo(Outcome.DUPLICATE);
            assertThat(ran).containsExactly("a");
        }
    }
}
