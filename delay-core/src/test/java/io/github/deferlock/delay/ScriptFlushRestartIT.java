package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Q6: {@code SCRIPT FLUSH} and a redis-server restart (AOF always) while a producer enqueues and a worker
 * drains: no acknowledged job is lost and none is stuck in due or in flight at the end.
 */
final class ScriptFlushRestartIT {

    @Test
    void scriptFlushAndRestart_underLoad_noJobLostOrStuck() throws Exception {
        try (RedisServer server = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> queue = DelayQueue.builder(redis, "q6", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Set<String> handled = ConcurrentHashMap.newKeySet();
            AtomicInteger producerErrors = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < 3000 && !stop.get(); i++) {
                    String id = "job-" + i;
                    while (!stop.get()) {
                        try {
                            queue.enqueue(id, new Msg("m", i), Duration.ofMillis(i % 50));
                            acknowledged.add(id);
                            break;
                        } catch (RuntimeException e) {
                            producerErrors.incrementAndGet(); // the restart: try the same id again
                        }
                    }
                }
            });
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> handled.add(job.id()))
                    .concurrency(4)
                    .build()
                    .start()) {
                assertThat(worker.isRunning()).isTrue();
                producer.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 500);
                try (Jedis admin = server.newConnection()) {
                    admin.scriptFlush();
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 1500);
                server.kill();
                server.restart();
                producer.join(Duration.ofSeconds(60).toMillis());
                assertThat(producer.isAlive()).isFalse();
                await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(acknowledged));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT) == 0);
            } finally {
                stop.set(true);
            }
            assertThat(acknowledged).hasSize(3000);
            assertThat(handled).containsAll(acknowledged);
            assertThat(queue.size(JobState.DEAD)).isZero();
            System.out.printf(
                    "Q6: %d acknowledged, %d handled, %d producer errors retried across SCRIPT FLUSH + kill/restart%n",
                    acknowledged.size(), handled.size(), producerErrors.get());
        }
    }
}
