package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * A consumer JVM is SIGKILLed after {@code handle} returned but before its XACK: the entry is still pending, a
 * surviving consumer reclaims it with XAUTOCLAIM, and the handler has run exactly once in the end.
 */
@ExtendWith(RedisExtension.class)
final class ConsumerKilledIT {

    @Test
    void killedAfterProcessingBeforeAck_theEntryIsReclaimed_andNotRunAgain(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO)) {
            StreamProducer.builder(f.redis, "orders").build().add(new Order("m-a", "ka"));
            try (JvmProcess child =
                    JvmProcess.start(ConsumerMain.class, Integer.toString(server.port()), Outcome.PROCESSED.name())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.redis.exists("reached"));
                child.kill();
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-a")).isEqualTo("1");
            assertThat(f.pending("orders")).as("not acked").isEqualTo(1);

            f.withDeferralWorker();
            try (StreamConsumer<Order> survivor = f.consumer("orders")
                    .claimIdle(Duration.ofMillis(500))
                    .claimInterval(Duration.ofMillis(100))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> survivor.isRunning() && f.pending("orders") == 0);
            }
            assertThat(f.recorder.reclaimed.get()).isEqualTo(1);
            assertThat(f.recorder.duplicates.get())
                    .as("the done marker recognised it")
                    .isEqualTo(1);
            assertThat(f.redis.hget(Fixture.HANDLED, "m-a")).isEqualTo("1");
        }
    }

    @Test
    void killedAfterDeferringBeforeAck_theEntryIsReclaimed_notStoredTwice_andRunOnce(RedisServer server) {
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO);
                RedisClient other = server.newClient();
                RedisLocks holder = RedisLocks.builder(other).keyPrefix("t:").build()) {
            DistributedLock hot = holder.get("order:kb");
            assertThat(hot.tryLock(Duration.ZERO, Duration.ofMinutes(2))).isTrue();
            StreamProducer.builder(f.redis, "orders").build().add(new Order("m-b", "kb"));
            try (JvmProcess child =
                    JvmProcess.start(ConsumerMain.class, Integer.toString(server.port()), Outcome.DEFERRED.name())) {
                await().atMost(Duration.ofSeconds(60)).until(() -> f.redis.exists("reached"));
                child.kill();
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-b")).isNull();
            assertThat(f.pending("orders")).as("not acked").isEqualTo(1);
            assertThat(f.deferralsLeft()).as("the deferral was stored").isEqualTo(1);

            f.withDeferralWorker();
            try (StreamConsumer<Order> survivor = f.consumer("orders")
                    .claimIdle(Duration.ofMillis(500))
                    .claimInterval(Duration.ofMillis(100))
                    .build()
                    .start()) {
                // the lock is still taken: the reclaimed copy is deferred again under the same job id
                await().atMost(Duration.ofSeconds(30)).until(() -> survivor.isRunning() && f.pending("orders") == 0);
                assertThat(f.recorder.deferred.get()).isEqualTo(1);
                assertThat(f.deferralsLeft()).as("not stored twice").isEqualTo(1);
                hot.unlock();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> f.redis.hexists(Fixture.HANDLED, "m-b") && f.deferralsLeft() == 0);
            }
            assertThat(f.redis.hget(Fixture.HANDLED, "m-b")).isEqualTo("1");
        }
    }
}
