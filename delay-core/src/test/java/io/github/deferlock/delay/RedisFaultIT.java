package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class RedisFaultIT {

    @Test
    void idleDisconnect_serverClosesIdleConnections_workerAndProducerCarryOn(RedisServer server) {
        server.config("timeout", "1");
        try (RedisClient producer = Clients.pooled(server);
                RedisClient consumer = Clients.pooled(server)) {
            DelayQueue<Msg> in = DelayQueue.builder(producer, "q", Msg.class).build();
            DelayQueue<Msg> out = DelayQueue.builder(consumer, "q", Msg.class).build();
            Set<Integer> handled = ConcurrentHashMap.newKeySet();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            out, job -> handled.add(job.payload().n()))
                    .fallbackPoll(Duration.ofSeconds(3))
                    .build()
                    .start()) {
                in.enqueue(new Msg("warm", 0));
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains(0));
                // idle for 3 s: the server drops every pooled connection (pub/sub ones are exempt)
                await().during(Duration.ofSeconds(3))
                        .atMost(Duration.ofSeconds(5))
                        .until(worker::isRunning);
                for (int i = 1; i <= 20; i++) {
                    in.enqueue(new Msg("after idle", i), Duration.ofMillis(i * 10L));
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 21);
            }
        } finally {
            server.config("timeout", "0");
        }
    }

    @Test
    void killAndRestart_withAppendfsyncAlways_everyAcknowledgedEnqueueIsDelivered() {
        try (RedisServer server = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                RedisClient producer = Clients.pooled(server);
                RedisClient consumer = Clients.pooled(server)) {
            DelayQueue<Msg> in = DelayQueue.builder(producer, "q", Msg.class).build();
            DelayQueue<Msg> out = DelayQueue.builder(consumer, "q", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            Set<String> handled = ConcurrentHashMap.newKeySet();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(out, job -> handled.add(job.id()))
                    .concurrency(4)
                    .build()
                    .start()) {
                for (int i = 0; i < 300; i++) {
                    acknowledged.add(in.enqueue(
                                    new Msg("before", i),
                                    Duration.ofMillis(
                                            ThreadLocalRandom.current().nextInt(3000)))
                            .id());
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() >= 50);
                server.kill();
                server.restart();
                List<String> after = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    after.add(in.enqueue(new Msg("after", i)).id());
                }
                acknowledged.addAll(after);
                await().atMost(Duration.ofSeconds(40)).until(() -> handled.containsAll(acknowledged));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> out.size(JobState.DUE) + out.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.isRunning()).isTrue();
            }
        }
    }
}
