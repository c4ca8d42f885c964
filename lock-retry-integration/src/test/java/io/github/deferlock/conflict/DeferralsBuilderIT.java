package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.RedisQueues;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

final class DeferralsBuilderIT {

    @Test
    void startWorker_onAnAllkeysServer_givesAdviceDeferralsCanFollow() {
        try (RedisServer server = RedisServer.builder()
                        .setting("maxmemory", "64mb")
                        .setting("maxmemory-policy", "allkeys-lru")
                        .start();
                RedisClient redis = server.newClient()) {
            try (Deferrals refused = Deferrals.builder(redis, "evict-q").build()) {
                assertThatThrownBy(() -> refused.startWorker(1))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("allkeys-lru")
                        .hasMessageContaining("Deferrals.builder(redis, \"evict-q\").allowEvictionPolicy(true)")
                        .hasMessageNotContaining("build the worker");
            }
            try (Deferrals allowed = Deferrals.builder(redis, "evict-q")
                    .allowEvictionPolicy(true)
                    .build()) {
                DelayQueueWorker<DeferredMessage> worker = allowed.startWorker(1);
                assertThat(worker).isNotNull();
            }
        }
    }

    @Test
    void builder_settings_areCheckedWithTheSharedWording() {
        try (RedisServer server = RedisServer.builder().start();
                RedisClient redis = server.newClient()) {
            Deferrals.Builder b = Deferrals.builder(redis, "q");
            assertThatThrownBy(() -> b.maxDeferrals(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxDeferrals must be at least 1, not 0");
            assertThatThrownBy(() -> b.doneMarkerTtl(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("doneMarkerTtl must be positive, not 0 s");
            b.maxDeferrals(3);
            assertThatThrownBy(() -> b.maxDeferrals(4))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("maxDeferrals was already set to 3");
            assertThatThrownBy(() -> b.backoff(null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessage("backoff cannot be null");
            assertThat(b.build().maxDeferrals()).isEqualTo(3);
        }
    }

    /** Built on a RedisQueues, the deferral worker subscribes on the owner's bus, with the owner's other queues. */
    @Test
    void builder_onRedisQueues_sharesTheOwnersSubscriberConnection() {
        try (RedisServer server = RedisServer.builder().start();
                RedisClient redis = server.newClient();
                RedisQueues queues = RedisQueues.on(redis)) {
            DelayQueue<String> other = queues.builder("other", String.class).build();
            try (Deferrals deferrals = Deferrals.builder(queues, "deferred").build();
                    DelayQueueWorker<String> worker =
                            DelayQueueWorker.builder(other, job -> {}).build().start()) {
                assertThat(deferrals.queue().name()).isEqualTo("deferred");
                deferrals.startWorker(1);
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                                .as("one connection holds both queues' channels")
                                .containsExactly(2));
                assertThat(worker.isRunning()).isTrue();
            }
            assertThatThrownBy(() -> Deferrals.builder((RedisQueues) null, "q"))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessage("queues cannot be null");
        }
    }
}
