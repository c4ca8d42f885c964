package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 16: a worker tells the queue's listener what happened to each job, exactly once per happening, and a
 * listener that throws changes nothing.
 */
@ExtendWith(RedisExtension.class)
final class WorkerEventsIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** Counts each event; the throwing one throws after counting. */
    static final class Recorder implements QueueListener {
        final boolean throwing;
        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        final List<Duration> runTimes = new CopyOnWriteArrayList<>();
        final List<Duration> lateness = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();

        Recorder(boolean throwing) {
            this.throwing = throwing;
        }

        int count(String event) {
            AtomicInteger n = counts.get(event);
            return n == null ? 0 : n.get();
        }

        private void seen(String event, String detail) {
            counts.computeIfAbsent(event, e -> new AtomicInteger()).incrementAndGet();
            events.add(event + " " + detail);
            if (throwing) {
                throw new IllegalStateException("a listener bug in " + event);
            }
        }

        @Override
        public void onClaimed(String queue, String jobId, int attempt) {
            seen("claimed", jobId + " attempt " + attempt);
        }

        @Override
        public void onHandled(String queue, String jobId, Duration runTime, Duration late) {
            runTimes.add(runTime);
            lateness.add(late);
            seen("handled", jobId);
        }

        @Override
        public void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {
            seen(willRetry ? "failed, will retry" : "failed, no retry", jobId + " attempt " + attempt + " " + error);
        }

        @Override
        public void onDeadLettered(String queue, String jobId, String reason) {
            seen("dead-lettered", jobId + " " + reason);
        }

        @Override
        public void onClaimLost(String queue, String jobId) {
            seen("claim lost", jobId);
        }

        @Override
        public void onGivenBack(String queue, String jobId) {
            seen("given back", jobId);
        }
    }

    @ParameterizedTest(name = "throwing listener: {0}")
    @ValueSource(booleans = {false, true})
    void workload_eachEventReportedExactlyOnce(boolean throwing, UnifiedJedis redis) throws InterruptedException {
        Recorder events = new Recorder(throwing);
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "events-" + throwing, Msg.class)
                .maxAttempts(2)
                .backoff(Backoff.fixed(Duration.ofMillis(50)))
                .listener(events)
                .build();
        List<String> runs = new CopyOnWriteArrayList<>();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                    String text = job.payload().text();
                    runs.add(text + "#" + job.attempts());
                    switch (text) {
                        case "flaky" -> {
                            if (job.attempts() == 1) {
                                throw new IllegalStateException("flaky, first time");
                            }
                        }
                        case "poison" -> throw new IllegalStateException("poison");
                        case "doomed" -> queue.deadLetter(job, "not for us"); // the handler asks for it
                        case "block" -> {
                            blocked.countDown();
                            never.await(); // until close() interrupts it
                        }
                        default -> Thread.sleep(2);
                    }
                })
                .concurrency(1)
                .batchSize(10)
                .build()
                .start();
        try {
            // 10 successes, one failure that succeeds on its retry, one that dead-letters after 2 attempts, one
            // whose handler dead-letters it
            for (int i = 0; i < 10; i++) {
                queue.enqueue(new Msg("ok", i));
            }
            String flaky = queue.enqueue(new Msg("flaky", 0)).id();
            String poison = queue.enqueue(new Msg("poison", 0)).id();
            String doomed = queue.enqueue(new Msg("doomed", 0)).id();
            await().atMost(WAIT).until(() -> events.count("handled") == 11 && events.count("dead-lettered") == 2);
            // 10 more successes, last: the average run the worker judges claim-ahead by is that of quick runs
            for (int i = 10; i < 20; i++) {
                queue.enqueue(new Msg("ok", i));
            }
            await().atMost(WAIT).until(() -> events.count("handled") == 21);
            await().atMost(WAIT).until(() -> queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT) == 0);

            // six jobs due at the same moment are claimed in one call: one runs (and blocks), five wait
            Instant at = Instant.now().plusMillis(300);
            for (int i = 0; i < 6; i++) {
                queue.schedule(new Msg("block", i), at);
            }
            assertThat(blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            await().atMost(WAIT).until(() -> events.count("claimed") == 31);
            assertThat(worker.close(Duration.ofMillis(200)))
                    .as("the blocked handler is interrupted")
                    .isFalse();
            await().atMost(WAIT).until(() -> events.count("given back") == 6);

            assertThat(events.events)
                    .filteredOn(e -> e.startsWith("claimed " + flaky) || e.startsWith("claimed " + poison))
                    .containsExactlyInAnyOrder(
                            "claimed " + flaky + " attempt 1",
                            "claimed " + flaky + " attempt 2",
                            "claimed " + poison + " attempt 1",
                            "claimed " + poison + " attempt 2");
            assertThat(events.events)
                    .filteredOn(e -> e.startsWith("failed") || e.startsWith("dead-lettered"))
                    .containsExactlyInAnyOrder(
                            "failed, will retry " + flaky
                                    + " attempt 1 java.lang.IllegalStateException: flaky, first time",
                            "failed, will retry " + poison + " attempt 1 java.lang.IllegalStateException: poison",
                            "failed, no retry " + poison + " attempt 2 java.lang.IllegalStateException: poison",
                            "dead-lettered " + poison + " java.lang.IllegalStateException: poison",
                            "dead-lettered " + doomed + " not for us");
            assertThat(events.runTimes).hasSize(21).allMatch(d -> !d.isNegative());
            assertThat(events.runTimes)
                    .as("the ok handler sleeps 2 ms")
                    .filteredOn(d -> d.toMillis() >= 2)
                    .hasSizeGreaterThanOrEqualTo(20);
            assertThat(events.lateness).hasSize(21).allMatch(d -> !d.isNegative());
            // then nothing more comes, and the counts are exact
            Thread.sleep(300);
            assertThat(events.counts)
                    .containsOnlyKeys(
                            "claimed",
                            "handled",
                            "failed, will retry",
                            "failed, no retry",
                            "dead-lettered",
                            "given back");
            assertThat(events.count("claimed")).isEqualTo(31);
            assertThat(events.count("handled")).isEqualTo(21);
            assertThat(events.count("failed, will retry")).isEqualTo(2);
            assertThat(events.count("failed, no retry")).isEqualTo(1);
            assertThat(events.count("dead-lettered")).isEqualTo(2);
            assertThat(events.count("given back")).isEqualTo(6);
            assertThat(events.count("claim lost")).isZero();
        } finally {
            worker.close(Duration.ZERO);
        }
        // the jobs' fate does not depend on the listener
        assertThat(runs).filteredOn(r -> r.startsWith("ok#1")).hasSize(20);
        assertThat(runs)
                .filteredOn(r -> !r.startsWith("ok#"))
                .containsExactlyInAnyOrder("flaky#1", "flaky#2", "poison#1", "poison#2", "doomed#1", "block#1");
        assertThat(queue.size(JobState.DEAD)).isEqualTo(2);
        assertThat(queue.size(JobState.DUE))
                .as("the given-back jobs are due again")
                .isEqualTo(6);
        assertThat(queue.size(JobState.IN_FLIGHT)).isZero();
    }

    @Test
    void claimLost_visibilityRanOutWhileTheWorkerWasCutOff_reportedOnce(UnifiedJedis redis, RedisServer server)
            throws InterruptedException {
        Recorder events = new Recorder(false);
        Duration visibility = Duration.ofMillis(600);
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), 500)) {
            DelayQueue<Msg> workerSide = DelayQueue.builder(viaProxy, "events-lost", Msg.class)
                    .visibilityTimeout(visibility)
                    .listener(events)
                    .build();
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "events-lost", Msg.class)
                    .visibilityTimeout(visibility)
                    .build();
            CountDownLatch started = new CountDownLatch(1);
            String id = direct.enqueue(new Msg("hang", 1)).id();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(workerSide, job -> {
                        started.countDown();
                        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (!job.isClaimLost() && System.nanoTime() - end < 0) {
                            Thread.sleep(10);
                        }
                    })
                    .build()
                    .start()) {
                assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                proxy.blackhole(); // the worker can no longer renew: its claim runs out after the visibility timeout
                List<Job<Msg>> taken = await().atMost(WAIT)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> direct.claim(1), jobs -> !jobs.isEmpty());
                assertThat(taken.get(0).id()).isEqualTo(id);
                assertThat(taken.get(0).attempts()).isEqualTo(2);
                assertThat(direct.ack(taken.get(0))).isTrue();
                proxy.heal(); // the next renewal is refused
                await().atMost(WAIT).until(() -> events.count("claim lost") == 1);
                assertThat(worker.close(Duration.ofSeconds(10))).isTrue();
            }
            assertThat(events.events).containsExactly("claimed " + id + " attempt 1", "claim lost " + id);
        }
    }
}
