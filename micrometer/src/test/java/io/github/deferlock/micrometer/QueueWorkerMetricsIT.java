package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.testing.RedisExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * A real {@link DelayQueueWorker} on a real redis-server with a known workload: the meters {@link QueueMetrics}
 * publishes equal what happened, the timers measured something, and the tags stay low-cardinality.
 */
@ExtendWith(RedisExtension.class)
final class QueueWorkerMetricsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String QUEUE = "work";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aKnownWorkload_isCountedExactly(RedisClient redis) throws InterruptedException {
        QueueMetrics metrics =
                QueueMetrics.builder().gaugeRefresh(Duration.ofMillis(100)).build();
        metrics.bindTo(registry);
        DelayQueue<String> queue = DelayQueue.builder(redis, QUEUE, String.class)
                .listener(metrics)
                .maxAttempts(2)
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .visibilityTimeout(Duration.ofSeconds(3)) // claims look ahead a tenth of it: 300 ms of runs
                .build();
        metrics.monitor(queue);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        DelayQueueWorker<String> worker = DelayQueueWorker.builder(queue, job -> {
                    switch (job.payload()) {
                        case "flaky" -> {
                            if (job.attempts() == 1) {
                                throw new IllegalStateException("flaky, first time");
                            }
                        }
                        case "poison" -> throw new IllegalStateException("poison");
                        case "lost" -> {
                            queue.cancel(job.id()); // someone else removes it: the next renewal is refused
                            long end = System.nanoTime() + WAIT.toNanos();
                            while (!job.isClaimLost() && System.nanoTime() - end < 0) {
                                Thread.sleep(10);
                            }
                        }
                        case "block" -> {
                            blocked.countDown();
                            never.await(); // until close() interrupts it
                        }
                        default -> Thread.sleep(5);
                    }
                })
                .concurrency(1)
                .batchSize(10)
                .build()
                .start();
        try {
            // 10 successes, each due a second before it was enqueued (so each run starts at least 1 s late); one
            // that succeeds on its retry; one that dead-letters after its 2 attempts
            Instant past = Instant.now().minusSeconds(1);
            for (int i = 0; i < 10; i++) {
                queue.schedule("ok", past);
            }
            queue.enqueue("flaky");
            queue.enqueue("poison");
            await().atMost(WAIT).until(() -> timer("deferlock.queue.run").count() == 11 && deadLetters() == 1);

            // a claim lost: the job is cancelled while its handler runs
            queue.enqueue("lost");
            await().atMost(WAIT).until(() -> count("deferlock.queue.claims.lost") == 1);
            // 40 more successes: the average run the worker judges how far to claim ahead by (it falls by an eighth
            // per run) is a quick one again after the lost job's long run, so the next claim takes 10 jobs
            for (int i = 0; i < 40; i++) {
                queue.schedule("ok", past);
            }
            await().atMost(WAIT).until(() -> timer("deferlock.queue.run").count() == 51);

            // given back on close: four jobs due at the same moment are claimed in one call; one runs (and
            // blocks), three wait in the buffer
            Instant at = Instant.now().plusMillis(300);
            for (int i = 0; i < 4; i++) {
                queue.schedule("block", at);
            }
            assertThat(blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            await().atMost(WAIT).until(() -> count("deferlock.queue.claimed") == 59);
            assertThat(worker.close(Duration.ofMillis(200)))
                    .as("the blocked handler is interrupted")
                    .isFalse();
            await().atMost(WAIT).until(() -> count("deferlock.queue.given.back") == 4);
        } finally {
            worker.close(Duration.ZERO);
        }

        assertThat(count("deferlock.queue.enqueued")).isEqualTo(57); // 50 ok, flaky, poison, lost, 4 block
        // 50 ok + flaky twice + poison twice + lost + 4 block
        assertThat(count("deferlock.queue.claimed")).isEqualTo(59);
        Timer run = timer("deferlock.queue.run");
        assertThat(run.count()).isEqualTo(51); // 50 ok + flaky's second run
        assertThat(run.totalTime(TimeUnit.MILLISECONDS))
                .as("the ok handler sleeps 5 ms")
                .isGreaterThanOrEqualTo(250);
        Timer lateness = timer("deferlock.queue.lateness");
        assertThat(lateness.count()).isEqualTo(51);
        assertThat(lateness.max(TimeUnit.MILLISECONDS))
                .as("the ok jobs were due a second before they were enqueued")
                .isGreaterThanOrEqualTo(1000);
        assertThat(failed("true")).as("flaky#1, poison#1").isEqualTo(2);
        assertThat(failed("false")).as("poison#2").isEqualTo(1);
        assertThat(deadLetters()).isEqualTo(1);
        assertThat(count("deferlock.queue.claims.lost")).isEqualTo(1);
        assertThat(count("deferlock.queue.given.back")).isEqualTo(4);

        // the queue's own counters in Redis, and the meters over them: 51 acked (the worker's acks ride along
        // with its claims or go alone), 1 dead-lettered; the lost job was cancelled, so never acked
        QueueStats stats = queue.stats();
        assertThat(stats.enqueued()).isEqualTo(57);
        assertThat(stats.acked()).isEqualTo(51);
        assertThat(stats.deadLettered()).isEqualTo(1);
        assertThat(stats.waiting()).as("the given-back jobs are due again").isEqualTo(4);
        assertThat(queue.size(JobState.IN_FLIGHT)).isZero();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(functionCount("deferlock.queue.total.enqueued")).isEqualTo(57);
            assertThat(functionCount("deferlock.queue.total.acked")).isEqualTo(51);
            assertThat(functionCount("deferlock.queue.total.dead.lettered")).isEqualTo(1);
            assertThat(registry.get("deferlock.queue.due")
                            .tag("queue", QUEUE)
                            .gauge()
                            .value())
                    .isEqualTo(4);
        });

        // low cardinality: job ids appear nowhere; the only tags are the queue name and the retry flag
        Set<String> tagKeys = new HashSet<>();
        Set<String> queueTags = new HashSet<>();
        for (Meter meter : registry.getMeters()) {
            assertThat(meter.getId().getName()).startsWith("deferlock.queue.");
            for (Tag tag : meter.getId().getTags()) {
                tagKeys.add(tag.getKey());
                if (tag.getKey().equals("queue")) {
                    queueTags.add(tag.getValue());
                }
            }
        }
        assertThat(tagKeys).containsExactlyInAnyOrder("queue", "retry");
        assertThat(queueTags).containsExactly(QUEUE);
        assertThat(registry.getMeters()).hasSizeLessThanOrEqualTo(20);
    }

    private double count(String name) {
        return registry.get(name).tag("queue", QUEUE).counter().count();
    }

    private double functionCount(String name) {
        return registry.get(name).tag("queue", QUEUE).functionCounter().count();
    }

    private double deadLetters() {
        return count("deferlock.queue.dead.letters");
    }

    private double failed(String retry) {
        return registry.get("deferlock.queue.failed")
                .tag("queue", QUEUE)
                .tag("retry", retry)
                .counter()
                .count();
    }

    private Timer timer(String name) {
        return registry.get(name).tag("queue", QUEUE).timer();
    }
}
