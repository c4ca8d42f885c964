package io.github.deferlock.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Issue 26: a handler whose <em>own</em> Redis (or any Redis call of the user's code) fails is a handler failure,
 * although the lock's Redis is up: it uses attempts and dead-letters, and never closes the consumer's outage gate.
 * A real {@link ConflictAwareHandler} on a real Redis, run through the {@link DeliveryRunner}.
 */
@ExtendWith(RedisExtension.class)
final class UsersRedisFailureIT {

    @Test
    void aRedisErrorFromTheUsersHandler_usesAttempts_andDeadLetters(RedisServer server) {
        AtomicInteger runs = new AtomicInteger();
        List<String> events = new CopyOnWriteArrayList<>();
        try (RedisClient redis = server.newClient();
                RedisClient usersOwn = RedisClient.create(new HostAndPort("127.0.0.1", 1));
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            ConflictAwareHandler<String> handler = ConflictAwareHandler.builder("users-redis", String.class, locks)
                    .key(m -> "k:" + m)
                    .handler(m -> {
                        runs.incrementAndGet();
                        usersOwn.get("cache:" + m); // the user's Redis is unreachable
                    })
                    .build();
            ConsumerListener l = new ConsumerListener() {
                @Override
                public void onFailed(String id, int attempt, Throwable error) {
                    events.add("failed " + attempt + " " + error.getClass().getSimpleName());
                }

                @Override
                public void onRedisUnavailable(String id, Throwable error) {
                    events.add("redis");
                }
            };
            OutageGate gate = new OutageGate();
            DeliveryRunner<String> runner = new DeliveryRunner<>(
                    handler::handle,
                    3,
                    Backoff.fixed(Duration.ofMillis(1)),
                    new GuardedListener<>(l),
                    "test",
                    gate,
                    Sleeper.SYSTEM,
                    System::nanoTime);

            long giveUp = System.nanoTime() + Duration.ofSeconds(20).toNanos(); // bounds the old, endless retry
            DeliveryRunner.Result r = runner.run("m", "id", 1, () -> System.nanoTime() - giveUp < 0);

            assertThat(r).isInstanceOf(DeliveryRunner.Result.DeadLetter.class);
            assertThat(runs).hasValue(3);
            assertThat(events)
                    .containsExactly(
                            "failed 1 JedisConnectionException",
                            "failed 2 JedisConnectionException",
                            "failed 3 JedisConnectionException");
            assertThat(gate.isClosed()).isFalse();
            assertThat(redis.exists(locks.get("k:m").key()))
                    .as("the lock was released")
                    .isFalse();
        }
    }
}
