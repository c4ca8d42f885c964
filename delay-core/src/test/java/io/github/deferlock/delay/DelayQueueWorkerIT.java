package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class DelayQueueWorkerIT {

    @Test
    void worker_neverEarlyAndExactlyOnce_2000JobsWithRandomDelays(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class).build();
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            List<Long> latenessMicros = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger early = new AtomicInteger();
            JobHandler<Msg> handler = job -> {
                Instant now = ServerTime.now(redis);
                long late = Duration.between(job.dueAt(), now).toNanos() / 1000;
                if (late < 0) {
                    early.incrementAndGet();
                }
                latenessMicros.add(late);
                handled.merge(job.id(), 1, Integer::sum);
            };
            List<DelayQueueWorker<Msg>> workers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                workers.add(DelayQueueWorker.builder(q, handler)
                        .concurrency(2)
                        .build()
                        .start());
            }
            List<NewJob<Msg>> warmUp = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                warmUp.add(NewJob.of(
                        new Msg("warm-up", i),
                        Duration.ofMillis(ThreadLocalRandom.current().nextInt(300))));
            }
            q.enqueueAll(warmUp);
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 300);
            handled.clear();
            latenessMicros.clear();
            List<NewJob<Msg>> jobs = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                jobs.add(NewJob.of(
                        new Msg("m", i),
                        Duration.ofMillis(ThreadLocalRandom.current().nextInt(2001))));
            }
            Map<String, Instant> due = new ConcurrentHashMap<>();
            for (EnqueueResult r : q.enqueueAll(jobs)) {
                due.put(r.id(), r.dueAt());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 2000);
            workers.forEach(DelayQueueWorker::close);

            assertThat(early).hasValue(0);
            assertThat(handled.keySet()).isEqualTo(due.keySet());
            assertThat(handled.values()).allMatch(n -> n == 1);
            List<Long> sorted = new ArrayList<>(latenessMicros);
            Collections.sort(sorted);
            System.out.printf(
                    "lateness over %d jobs (4 workers x 2 threads, Redis %s): p50 %.2f ms, p99 %.2f ms, max %.2f"
                            + " ms%n",
                    sorted.size(),
                    server.version(),
                    Clients.percentile(sorted, 0.50) / 1000.0,
                    Clients.percentile(sorted, 0.99) / 1000.0,
                    sorted.get(sorted.size() - 1) / 1000.0);
            // precision is the benchmark's job (docs/benchmarks.md); here only a gross regression fails, even on a
            // loaded box
            assertThat(Clients.percentile(sorted, 0.50)).isLessThan(TimeUnit.MILLISECONDS.toMicros(250));
        }
    }

    @Test
    void worker_exactlyOnceUnderContention_20000JobsEightWorkersTwoEntryObjects(RedisServer server) {
        try (RedisClient a = Clients.pooled(server);
                RedisClient b = Clients.pooled(server)) {
            DelayQueue<Msg> qa = DelayQueue.builder(a, "q", Msg.class).build();
            DelayQueue<Msg> qb = DelayQueue.builder(b, "q", Msg.class).build();
            List<Msg> payloads = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                payloads.add(new Msg("m", i));
            }
            Set<String> ids = ConcurrentHashMap.newKeySet();
            qa.enqueueAll(payloads, Duration.ZERO).forEach(r -> ids.add(r.id()));
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            JobHandler<Msg> handler = job -> handled.merge(job.id(), 1, Integer::sum);
            long t0 = System.nanoTime();
            List<DelayQueueWorker<Msg>> workers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                workers.add(DelayQueueWorker.builder(qa, handler)
                        .batchSize(20)
                        .build()
                        .start());
                workers.add(DelayQueueWorker.builder(qb, handler)
                        .batchSize(20)
                        .build()
                        .start());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == 20_000);
            System.out.printf("20000 jobs drained by 8 workers in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            workers.forEach(DelayQueueWorker::close);
            assertThat(handled.keySet()).isEqualTo(ids);
            assertThat(handled.values()).allMatch(n -> n == 1);
            assertThat(qa.size(JobState.DUE) + qa.size(JobState.IN_FLIGHT) + qa.size(JobState.DEAD))
                    .isZero();
        }
    }

    @Test
    void worker_wakesEarlyWhenAnEarlierJobArrives(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class).build();
            AtomicReference<Duration> lateness = new AtomicReference<>();
            q.enqueue(new Msg("far", 0), Duration.ofMinutes(10));
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            q, job -> lateness.set(Duration.between(job.dueAt(), ServerTime.now(redis))))
                    .fallbackPoll(Duration.ofMinutes(5))
                    .build()
                    .start()) {
                assertThat(worker.isRunning()).isTrue();
                await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(server));
                q.enqueue(new Msg("soon", 1), Duration.ofMillis(200));
                await().atMost(Duration.ofSeconds(10)).until(() -> lateness.get() != null);
                System.out.println(
                        "woken by the notice, lateness " + lateness.get().toNanos() / 1000 + " us");
                assertThat(lateness.get()).isLessThan(Duration.ofSeconds(2)); // vs the 5 min fallback poll
            }
        }
    }

    @Test
    void worker_idleCostsAboutOneCommandPerSecond(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server);
                var stats = server.newConnection();
                DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                                DelayQueue.builder(redis, "q", Msg.class).build(), job -> {})
                        .concurrency(4)
                        .build()
                        .start()) {
            assertThat(worker.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(server) && commands(stats) >= 2);
            long start = commands(stats);
            long t0 = System.nanoTime();
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(worker::isRunning);
            double seconds = (System.nanoTime() - t0) / 1e9;
            long used = commands(stats) - start - 1; // minus the first INFO
            System.out.printf("idle worker (4 threads): %d commands in %.1f s%n", used, seconds);
            assertThat(used / seconds).isLessThanOrEqualTo(1.5);
        }
    }

    /**
     * Issue 30: an idle worker on an empty queue (its schedule ticker included) costs the server at most one
     * command per second, counting the commands scripts run: after a claim that finds the queue empty, it looks
     * with one EXISTS every two fallback polls until a notice or the look says there is work (before: a claim
     * script every second, about 11 commands, and the ticker's script every 5 s). And it still picks up a job at
     * once: the enqueue's notice wakes it.
     */
    @Test
    void worker_idleOnAnEmptyQueue_serverRunsAtMostOneCommandPerSecond_andAJobStillStartsAtOnce(RedisServer server)
            throws Exception {
        AtomicReference<Long> startedAt = new AtomicReference<>();
        try (RedisClient redis = Clients.pooled(server);
                var stats = server.newConnection();
                DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                                DelayQueue.builder(redis, "idle", Msg.class).build(),
                                job -> startedAt.compareAndSet(null, System.nanoTime()))
                        .concurrency(4)
                        .build()
                        .start()) {
            assertThat(worker.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> stats.pubsubNumSub("deferlock:dq:{idle}:wake").values().stream()
                            .anyMatch(n -> n > 0));
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(worker::isRunning); // settle
            long start = serverCommands(stats);
            long t0 = System.nanoTime();
            await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(10)).until(worker::isRunning);
            double seconds = (System.nanoTime() - t0) / 1e9;
            long used = serverCommands(stats) - start;
            System.out.printf("idle worker on an empty queue: the server ran %d commands in %.1f s%n", used, seconds);
            assertThat(used / seconds)
                    .as("commands the server ran per second for an idle worker, inside scripts too")
                    .isLessThanOrEqualTo(1.0);

            long enqueued = System.nanoTime();
            DelayQueue.builder(redis, "idle", Msg.class).build().enqueue(new Msg("now", 1), Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> startedAt.get() != null);
            long ms = (startedAt.get() - enqueued) / 1_000_000;
            System.out.printf("a job enqueued into the idle queue started after %d ms%n", ms);
            assertThat(ms)
                    .as("woken by the enqueue's notice, not by the next look")
                    .isLessThan(1_000);
        }
    }

    /** Every command the server ran (scripts' inner commands included), but the test's own INFO calls. */
    private static long serverCommands(redis.clients.jedis.Jedis stats) {
        long total = 0;
        for (String line : stats.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                int at = line.indexOf("calls=") + "calls=".length();
                total += Long.parseLong(line.substring(at, line.indexOf(',', at)));
            }
        }
        return total;
    }

    private static boolean subscribed(RedisServer server) {
        try (var c = server.newConnection()) {
            return c.pubsubNumSub("deferlock:dq:{q}:wake").values().stream().anyMatch(n -> n > 0);
        }
    }

    /** Commands sent by clients (a script call counts once, not the commands it runs). */
    private static long commands(redis.clients.jedis.Jedis stats) {
        long total = 0;
        for (String line : stats.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                String cmd = line.substring("cmdstat_".length(), line.indexOf(':'));
                if (cmd.equals("evalsha")
                        || cmd.equals("eval")
                        || cmd.equals("info")
                        || cmd.equals("zcard")
                        || cmd.equals("ping")
                        || cmd.equals("subscribe")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    total += Long.parseLong(line.substring(at, line.indexOf(',', at)));
                }
            }
        }
        return total;
    }

    @Test
    void worker_stuckHandler_jobRedeliveredAfterVisibilityTimeoutAndLateAckRefused(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                    .visibilityTimeout(Duration.ofMillis(500))
                    .build();
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Boolean> lateAck = new AtomicReference<>();
            AtomicReference<String> firstThread = new AtomicReference<>();
            AtomicReference<Job<Msg>> second = new AtomicReference<>();
            JobHandler<Msg> handler = job -> {
                if (job.attempts() == 1) {
                    firstThread.set(Thread.currentThread().getName());
                    release.await();
                    lateAck.set(q.ack(job));
                } else {
                    assertThat(Thread.currentThread().getName()).isNotEqualTo(firstThread.get());
                    second.set(job);
                }
            };
            // a stuck handler's claim is renewed up to maxHandlerTime (issue 14), then it runs out
            Duration maxHandlerTime = Duration.ofMillis(500);
            try (DelayQueueWorker<Msg> w1 = DelayQueueWorker.builder(q, handler)
                            .maxHandlerTime(maxHandlerTime)
                            .build()
                            .start();
                    DelayQueueWorker<Msg> w2 = DelayQueueWorker.builder(q, handler)
                            .maxHandlerTime(maxHandlerTime)
                            .build()
                            .start()) {
                assertThat(w1.isRunning()).isTrue();
                assertThat(w2.isRunning()).isTrue();
                String id = q.enqueue(new Msg("stuck", 1)).id();
                await().atMost(Duration.ofSeconds(10)).until(() -> second.get() != null);
                assertThat(second.get().id()).isEqualTo(id);
                assertThat(second.get().attempts()).isEqualTo(2);
                assertThat(second.get().lastError())
                        .hasValueSatisfying(e -> assertThat(e).contains("visibility timeout"));
                release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> lateAck.get() != null);
                assertThat(lateAck.get()).isFalse();
                await().atMost(Duration.ofSeconds(5)).until(() -> q.get(id).isEmpty());
            }
        }
    }

    @Test
    void worker_failingJob_retriesWithBackoffThenDeadLettersWhileOthersFlow(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                    .maxAttempts(3)
                    .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2.0))
                    .build();
            Map<Integer, Integer> calls = new ConcurrentHashMap<>();
            List<Instant> poisonTimes = Collections.synchronizedList(new ArrayList<>());
            JobHandler<Msg> handler = job -> {
                calls.merge(job.payload().n(), 1, Integer::sum);
                if (job.payload().text().equals("poison")) {
                    poisonTimes.add(ServerTime.now(redis));
                    throw new IllegalStateException(
                            "cannot digest " + job.payload().n());
                }
                if (job.payload().n() == 7) {
                    throw new AssertionError("an Error must not kill the worker either");
                }
            };
            try (DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, handler).concurrency(4).build().start()) {
                assertThat(worker.isRunning()).isTrue();
                String poison = q.enqueue(new Msg("poison", -1)).id();
                for (int i = 0; i < 50; i++) {
                    q.enqueue(new Msg("good", i), Duration.ofMillis(i * 10L));
                }
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> q.get(poison).map(JobInfo::state).orElse(null) == JobState.DEAD);
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> calls.keySet().size() == 51);
                assertThat(calls.get(-1)).isEqualTo(3);
                // the nack sets due = its server time in whole ms + the backoff, so the next run starts at least
                // the backoff after the previous start truncated to the ms (not after the exact start)
                assertThat(Duration.between(
                                poisonTimes.get(0).truncatedTo(java.time.temporal.ChronoUnit.MILLIS),
                                poisonTimes.get(1)))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(50));
                assertThat(Duration.between(
                                poisonTimes.get(1).truncatedTo(java.time.temporal.ChronoUnit.MILLIS),
                                poisonTimes.get(2)))
                        .isGreaterThanOrEqualTo(Duration.ofMillis(100));
                DeadLetter dead = q.deadLetters().list(10).stream()
                        .filter(d -> d.id().equals(poison))
                        .findFirst()
                        .orElseThrow();
                assertThat(dead.attempts()).isEqualTo(3);
                assertThat(dead.reason()).isEqualTo("java.lang.IllegalStateException: cannot digest -1");

                assertThat(q.deadLetters().requeue(poison)).isTrue();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> calls.get(-1) == 6
                                && q.get(poison).map(JobInfo::state).orElse(null) == JobState.DEAD);
                assertThat(q.deadLetters().purge()).isEqualTo(2); // the poison and job 7
                assertThat(q.size(JobState.DEAD)).isZero();
                assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT)).isZero();
            }
        }
    }

    @Test
    void worker_handlerThatSettlesItself_isNotSettledAgain(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(redis, "q", Msg.class).maxAttempts(1).build();
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            JobHandler<Msg> handler = job -> {
                seen.add(job.payload().text() + "@" + job.attempts());
                switch (job.payload().text()) {
                    case "defer" -> q.reschedule(job, Duration.ofMillis(50), new Msg("deferred", 1));
                    case "deferred" -> {
                        q.deadLetter(job, "gave up on purpose");
                        throw new IllegalStateException("the worker must not nack this");
                    }
                    default -> throw new IllegalStateException("unexpected " + job);
                }
            };
            try (DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, handler).build().start()) {
                assertThat(worker.isRunning()).isTrue();
                String id = q.enqueue(new Msg("defer", 0)).id();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> q.get(id).map(JobInfo::state).orElse(null) == JobState.DEAD);
                assertThat(seen).containsExactly("defer@1", "deferred@1");
                assertThat(q.deadLetters().list(1).get(0).reason()).isEqualTo("gave up on purpose");
            }
        }
    }

    @Test
    void close_underLoad_losesNothingAndHandlesNothingTwice(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class).build();
            List<Msg> payloads = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                payloads.add(new Msg("m", i));
            }
            Set<String> ids = ConcurrentHashMap.newKeySet();
            q.enqueueAll(payloads, Duration.ZERO).forEach(r -> ids.add(r.id()));
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            JobHandler<Msg> handler = job -> {
                TimeUnit.MICROSECONDS.sleep(500); // a little work, so close finds handlers running
                handled.merge(job.id(), 1, Integer::sum);
            };
            DelayQueueWorker<Msg> first =
                    DelayQueueWorker.builder(q, handler).concurrency(4).build().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() >= 500);
            assertThat(first.close(Duration.ofSeconds(10))).isTrue();
            assertThat(first.isRunning()).isFalse();
            int afterClose = handled.size();
            assertThat(q.size(JobState.IN_FLIGHT)).isZero();
            assertThat(q.size(JobState.DUE)).isEqualTo(3000 - afterClose);

            try (DelayQueueWorker<Msg> second =
                    DelayQueueWorker.builder(q, handler).concurrency(4).build().start()) {
                assertThat(second.isRunning()).isTrue();
                await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 3000);
            }
            assertThat(handled.keySet()).isEqualTo(ids);
            assertThat(handled.values()).allMatch(n -> n == 1);
        }
    }

    @Test
    void close_interruptsAStuckHandler_andReturnsItsJobWithoutSpendingAnAttempt(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(redis, "q", Msg.class).maxAttempts(1).build();
            String id = q.enqueue(new Msg("slow", 1)).id();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        started.countDown();
                        Thread.sleep(60_000);
                    })
                    .build()
                    .start();
            await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
            assertThat(worker.close(Duration.ofMillis(200))).isFalse();
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            q.get(id).map(info -> info.state() == JobState.DUE).orElse(false));
            assertThat(q.size(JobState.DEAD))
                    .as("maxAttempts 1, yet not dead: close is no failure")
                    .isZero();
        }
    }
}
