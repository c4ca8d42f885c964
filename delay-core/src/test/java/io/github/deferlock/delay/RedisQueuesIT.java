package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** Who owns the workers' notice bus: a {@link RedisQueues} for all its queues, or a standalone queue itself. */
@ExtendWith(RedisExtension.class)
final class RedisQueuesIT {

    /**
     * Counted on the server: once all ten workers' channels are subscribed, exactly one connection holds
     * subscriptions ({@code CLIENT LIST} sub/psub/ssub), with all ten channels, and each channel has exactly
     * one subscriber ({@code PUBSUB NUMSUB}); then every job runs once. A default pool has 8 connections: a
     * subscriber connection per queue would take them all and starve every claim, and the timeout turns that
     * into a failure rather than a hang.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void tenQueues_onOneDefaultPool_shareOneSubscriberAndAllRun(RedisServer server) {
        try (RedisClient redis = server.newClient();
                RedisQueues owner = RedisQueues.on(redis);
                Jedis admin = server.newConnection()) {
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            List<DelayQueueWorker<Msg>> workers = new ArrayList<>();
            List<DelayQueue<Msg>> queues = new ArrayList<>();
            for (int w = 0; w < 10; w++) {
                DelayQueue<Msg> q = owner.builder("q" + w, Msg.class).build();
                queues.add(q);
                workers.add(DelayQueueWorker.builder(q, job -> handled.merge(job.id(), 1, Integer::sum))
                        .concurrency(1)
                        .build()
                        .start());
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .as("subscriptions held by each subscribed connection")
                    .containsExactly(10));
            List<String> channels = admin.pubsubChannels();
            assertThat(channels).hasSize(10);
            assertThat(admin.pubsubNumSub(channels.toArray(String[]::new)))
                    .hasSize(10)
                    .allSatisfy((channel, subscribers) ->
                            assertThat(subscribers).as(channel).isEqualTo(1L));

            for (DelayQueue<Msg> q : queues) {
                for (int i = 0; i < 20; i++) {
                    q.enqueue(new Msg("m", i), Duration.ofMillis(i * 10L));
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 200);
            assertThat(handled.values()).allMatch(n -> n == 1);
            assertThat(server.subscriptionsPerConnection()).containsExactly(10);

            workers.forEach(DelayQueueWorker::close);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .as("the shared connection is given back once no worker listens")
                    .isEmpty());
        }
    }

    /** A standalone queue's workers share the queue's own bus: one connection for the queue, not one per worker. */
    @Test
    void standaloneQueues_eachHoldOneSubscriberForAllTheirWorkers_untilTheLastWorkerCloses(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            List<DelayQueueWorker<Msg>> workersOfA = new ArrayList<>();
            List<DelayQueueWorker<Msg>> workersOfB = new ArrayList<>();
            DelayQueue<Msg> a = DelayQueue.builder(redis, "a", Msg.class).build();
            DelayQueue<Msg> b = DelayQueue.builder(redis, "b", Msg.class).build();
            for (int i = 0; i < 3; i++) {
                workersOfA.add(DelayQueueWorker.builder(a, job -> {}).build().start());
                workersOfB.add(DelayQueueWorker.builder(b, job -> {}).build().start());
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .as("one connection per standalone queue, each with its one channel")
                    .containsExactly(1, 1));

            workersOfA.get(0).close();
            workersOfA.get(1).close();
            assertThat(server.subscriptionsPerConnection()).containsExactly(1, 1);
            workersOfA.get(2).close();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .as("a's bus is closed with its last worker")
                    .containsExactly(1));

            // a new worker of a opens a new bus
            workersOfA.add(DelayQueueWorker.builder(a, job -> {}).build().start());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .containsExactly(1, 1));
            workersOfA.forEach(DelayQueueWorker::close);
            workersOfB.forEach(DelayQueueWorker::close);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .isEmpty());
        }
    }

    /** The wake notice, not the 5 min fallback poll, starts the job on a standalone queue's (second) worker. */
    @Test
    void standaloneQueue_workersWakeOnTheNotice(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "alone", Msg.class).build();
            AtomicReference<Duration> lateness = new AtomicReference<>();
            try (DelayQueueWorker<Msg> first = DelayQueueWorker.builder(q, job -> lateness.set(Duration.ZERO))
                            .fallbackPoll(Duration.ofMinutes(5))
                            .build()
                            .start();
                    DelayQueueWorker<Msg> second = DelayQueueWorker.builder(
                                    q, job -> lateness.set(Duration.between(job.dueAt(), ServerTime.now(redis))))
                            .fallbackPoll(Duration.ofMinutes(5))
                            .build()
                            .start()) {
                assertWokenByTheNotice(server, q, lateness);
                assertThat(first.isRunning() && second.isRunning()).isTrue();
            }
        }
    }

    /** Queues of one owner wake on the shared bus, like standalone ones, long before their fallback poll. */
    @Test
    void sharedQueue_workerWakesOnTheNotice(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server);
                RedisQueues owner = RedisQueues.on(redis)) {
            DelayQueue<Msg> q = owner.builder("shared", Msg.class).build();
            AtomicReference<Duration> lateness = new AtomicReference<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            q, job -> lateness.set(Duration.between(job.dueAt(), ServerTime.now(redis))))
                    .fallbackPoll(Duration.ofMinutes(5))
                    .build()
                    .start()) {
                assertWokenByTheNotice(server, q, lateness);
                assertThat(worker.isRunning()).isTrue();
            }
        }
    }

    /**
     * Once the workers hold one subscription between them, a job enqueued 200 ms ahead starts well within 2 s of its
     * due time: woken by its notice, not by the workers' 5 min fallback poll.
     */
    private static void assertWokenByTheNotice(
            RedisServer server, DelayQueue<Msg> q, AtomicReference<Duration> lateness) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                .containsExactly(1));
        q.enqueue(new Msg("soon", 1), Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> lateness.get() != null);
        assertThat(lateness.get()).isLessThan(Duration.ofSeconds(2)); // vs the 5 min fallback poll
    }

    @Test
    void close_endsTheSubscription_refusesNewQueuesAndWorkers_andKeepsQueuesUsable(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            RedisQueues owner = RedisQueues.on(redis);
            DelayQueue<Msg> q = owner.builder("q", Msg.class).build();
            DelayQueue.Builder<Msg> pending = owner.builder("later", Msg.class);
            DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, job -> {}).build().start();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .containsExactly(1));

            owner.close();
            owner.close(); // idempotent
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(server.subscriptionsPerConnection())
                    .isEmpty());
            assertThatThrownBy(() -> owner.builder("other", Msg.class))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("RedisQueues")
                    .hasMessageContaining("was closed");
            assertThatThrownBy(pending::build).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(
                            () -> DelayQueueWorker.builder(q, job -> {}).build().start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was closed");
            assertThat(q.enqueue(new Msg("still", 1)).duplicate()).isFalse();
            worker.close(); // a worker of a closed owner closes cleanly
            assertThat(redis).isNotNull();
            assertThat(redis.ping()).isEqualTo("PONG"); // the client is not closed
        }
    }

    @Test
    void on_refusesNull() {
        assertThatThrownBy(() -> RedisQueues.on(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("redis");
    }
}
