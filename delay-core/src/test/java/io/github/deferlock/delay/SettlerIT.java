package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link Settler} is the only retry layer of a worker's settlements: the calls it makes through {@link
 * QueueCalls#of} are sent once each (no retry of the queue's own inside), and a resent ack is still recognised
 * by its replay record.
 */
@ExtendWith(RedisExtension.class)
final class SettlerIT {
    private static final int SOCKET_TIMEOUT_MS = 500;

    /** A pause that does not wait, counting how often the settler paused (one pause before each resend). */
    private static final class CountingPause implements Settler.Pause {
        final AtomicInteger pauses = new AtomicInteger();
        private final Runnable onPause;

        CountingPause(Runnable onPause) {
            this.onPause = onPause;
        }

        @Override
        public boolean pause(long millis) {
            pauses.incrementAndGet();
            onPause.run();
            return true;
        }
    }

    @Test
    void ack_whileRedisRefusesConnections_sendsOneCallPerTryOfTheSettlerOnly(RedisServer server, UnifiedJedis redis) {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "settle-refused", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "settle-refused", Msg.class).build();
            String id = direct.enqueue(new Msg("ack me", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);
            CountingPause pause = new CountingPause(() -> {});
            Settler<Msg> settler = new Settler<>(QueueCalls.of(proxied), new QueueListener() {}, pause);

            proxy.refuse();
            long before = proxy.acceptedConnections();
            Settler.Outcome outcome = settler.ack(job);
            long connections = proxy.acceptedConnections() - before;

            int tries = pause.pauses.get() + 1;
            assertThat(outcome).isEqualTo(Settler.Outcome.FAILED);
            assertThat(tries).as("the settler used its whole budget").isEqualTo(Settler.TRIES);
            assertThat(connections)
                    .as("connections opened by %d tries of the settler: no retry inside a try", tries)
                    .isBetween(1L, (long) tries);
            assertThat(direct.get(id)).as("nothing was acked").isPresent();
        }
    }

    @Test
    void ack_replyLost_settlersResendIsRecognisedAsTheSameAck(RedisServer server, UnifiedJedis redis) {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "settle-lost", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "settle-lost", Msg.class).build();
            direct.enqueue(new Msg("warm", 0));
            direct.ack(direct.claim(1).get(0)); // the ack script is cached: a blackholed NOSCRIPT would not run it
            String id = direct.enqueue(new Msg("ack me", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);
            CountingPause pause = new CountingPause(proxy::heal); // the first try's reply is lost, then heal
            Settler<Msg> settler = new Settler<>(QueueCalls.of(proxied), new QueueListener() {}, pause);

            proxy.blackholeReplies();
            Settler.Outcome outcome = settler.ack(job);

            assertThat(direct.get(id)).as("acked").isEmpty();
            assertThat(pause.pauses.get()).as("one resend").isEqualTo(1);
            assertThat(outcome)
                    .as("the resend is told the first try acked the job, not that its receipt is stale")
                    .isEqualTo(Settler.Outcome.DONE);
        }
    }
}
