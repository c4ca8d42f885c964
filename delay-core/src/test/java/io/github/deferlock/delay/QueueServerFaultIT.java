package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 29, "New faults" (queue part): the Redis server itself misbehaves while jobs are in flight. Q17: the
 * server frozen (SIGSTOP) for longer than the visibility timeout; Q18: replies slower than the client's
 * socket timeout (the server ran the call, the client gave up on it); Q19: {@code maxmemory} reached with
 * {@code noeviction}.
 */
@ExtendWith(RedisExtension.class)
final class QueueServerFaultIT {
    private static final int SOCKET_TIMEOUT_MS = 400;

    /** What one run of {@link #pausedWorker} saw: the attempts of each job's runs, by job id. */
    private record PausedRun(Map<String, List<Integer>> runs, long dead, long acked) {}

    /**
     * Four jobs run in a worker (visibility 1 s) when redis-server is SIGSTOPped for 2.5 s: the handlers of
     * two finish while it is frozen (their acks cannot go out), two finish 300 ms after the
     * resume (their renewals failed meanwhile). Returns once nothing is due or in flight.
     */
    private static PausedRun pausedWorker(RedisServer server, UnifiedJedis redis, String name, int maxAttempts)
            throws Exception {
        try (RedisClient client = Clients.pooled(server.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            DelayQueue<Msg> queue = DelayQueue.builder(client, name, Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .maxAttempts(maxAttempts)
                    .build();
            DelayQueue<Msg> direct = DelayQueue.builder(redis, name, Msg.class).build();
            CountDownLatch started = new CountDownLatch(4);
            CountDownLatch finishEarly = new CountDownLatch(1);
            CountDownLatch finishLate = new CountDownLatch(1);
            Map<String, List<Integer>> runs = new ConcurrentHashMap<>();
            for (int i = 0; i < 4; i++) {
                direct.enqueue(new Msg("job", i));
            }
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                        runs.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>())
                                .add(job.attempts());
                        started.countDown();
                        (job.payload().n() < 2 ? finishEarly : finishLate).await(20, TimeUnit.SECONDS);
                    })
                    .concurrency(4)
                    .fallbackPoll(Duration.ofMillis(100))
                    .build()
                    .start()) {
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

                server.pause();
                try {
                    finishEarly.countDown();
                    Thread.sleep(2_500); // the fault: frozen for 2.5 visibility timeouts
                } finally {
                    server.resume();
                }
                Thread.sleep(300);
                finishLate.countDown();

                await().atMost(Duration.ofSeconds(20))
                        .until(() ->
                                direct.size(JobState.DUE) + direct.size(JobState.IN_FLIGHT) == 0 && runs.size() == 4);
                assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
            }
            return new PausedRun(
                    runs, direct.size(JobState.DEAD), direct.stats().acked());
        }
    }

    /**
     * Q17: redis-server frozen (SIGSTOP) for 2.5 s, longer than the 1 s visibility timeout, while a worker
     * runs four jobs (two handlers finish during the freeze, two after it): none is lost or dead-lettered, each
     * is acked once and run once. Before the hold (liveness.lua) a claim, sent during the freeze and run by the
     * server when it resumes, could come before the acks and renewals and redeliver the jobs.
     */
    @Test
    void worker_redisPausedPastVisibility_noJobLostNoneDeadEachRunOnce(RedisServer server, UnifiedJedis redis)
            throws Exception {
        PausedRun run = pausedWorker(server, redis, "paused", 3);
        LoggerFactory.getLogger(QueueServerFaultIT.class).info("attempts of the runs after a freeze: {}", run.runs());

        assertThat(run.dead()).as("dead letters").isZero();
        assertThat(run.runs()).hasSize(4);
        run.runs().forEach((id, attempts) -> assertThat(attempts)
                .as("attempts of the runs of %s", id)
                .containsExactly(1));
        assertThat(run.acked()).as("acked once each").isEqualTo(4);
    }

    /**
     * Q17, no attempt charged: a job in flight across the freeze (its handler still running, or finished with its
     * ack not yet sent) keeps its claim although the server's clock ran past its deadline while it was frozen:
     * the worker's first claim after the resume finds the gap and holds the jobs whose deadline passed in it
     * until one visibility timeout later, so the renewals and acks land first. Before the hold, a claim that
     * reached the server first redelivered them (measured: 2 of 4 on 7.0, 3 of 4 on 6.2), with {@code
     * maxAttempts(1)} a dead letter ("visibility timeout expired on attempt 1 of 1") for a healthy handler.
     */
    @Test
    void worker_redisPausedPastVisibility_chargesNoAttempt(RedisServer server, UnifiedJedis redis) throws Exception {
        PausedRun run = pausedWorker(server, redis, "paused-one", 1);

        assertThat(run.dead()).as("dead letters").isZero();
        assertThat(run.runs().values().stream().flatMap(List::stream))
                .as("attempts of every run: the freeze charged none")
                .containsOnly(1);
    }

    /**
     * Runs {@code call} through the proxy while the server's replies come {@code 1.5 s} late (past the 400 ms
     * socket timeout: the client gives up and closes that connection, the late reply meets a closed socket);
     * once {@code applied} (read directly) says the server ran it, the replies go back to normal speed, so the
     * client's resend is answered.
     */
    private static <R> R withSlowReply(FaultProxy proxy, Supplier<R> call, BooleanSupplier applied) throws Exception {
        proxy.slowReplies(Duration.ofMillis(1_500));
        CompletableFuture<R> result = CompletableFuture.supplyAsync(call);
        try {
            await().pollInterval(Duration.ofMillis(20))
                    .atMost(Duration.ofSeconds(10))
                    .until(applied::getAsBoolean);
        } finally {
            proxy.heal();
        }
        return result.get(30, TimeUnit.SECONDS);
    }

    /**
     * Q18: each write whose reply comes later than the socket timeout, though the server ran it, is resent and
     * reports its own first run: a caller-id enqueue "enqueued" (not duplicate), a claim the same job at
     * attempt 1, a nack true, the re-claim attempt 2, an ack true. The job is stored once and ends acked.
     */
    @Test
    void writes_repliesSlowerThanSocketTimeout_resendReportsTheFirstRun(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "slow", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(30))
                    .build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "slow", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(30))
                    .build();
            warmUp(viaProxy);

            EnqueueResult enqueued = withSlowReply(
                    proxy, () -> proxied.enqueue("j1", new Msg("slow", 1), Duration.ZERO), () -> direct.get("j1")
                            .isPresent());
            assertThat(enqueued.duplicate())
                    .as("the resent enqueue is told it enqueued")
                    .isFalse();

            List<Job<Msg>> claimed = withSlowReply(proxy, () -> proxied.claim(1), () -> direct.get("j1")
                    .map(j -> j.state() == JobState.IN_FLIGHT)
                    .orElse(false));
            assertThat(claimed).extracting(Job::id).containsExactly("j1");
            assertThat(claimed.get(0).attempts()).isEqualTo(1);

            boolean nacked = withSlowReply(
                    proxy,
                    () -> proxied.nack(claimed.get(0), "try again", Duration.ZERO),
                    () -> direct.get("j1").map(j -> j.state() == JobState.DUE).orElse(false));
            assertThat(nacked).as("the resent nack is told it settled the job").isTrue();

            List<Job<Msg>> again = proxied.claim(1);
            assertThat(again).extracting(Job::id).containsExactly("j1");
            assertThat(again.get(0).attempts()).isEqualTo(2);

            boolean acked = withSlowReply(proxy, () -> proxied.ack(again.get(0)), () -> direct.get("j1")
                    .isEmpty());
            assertThat(acked).as("the resent ack is told it acked").isTrue();

            assertThat(direct.size(JobState.DUE) + direct.size(JobState.IN_FLIGHT) + direct.size(JobState.DEAD))
                    .isZero();
            assertThat(direct.stats().acked()).as("acked once").isEqualTo(1);
        }
    }

    /**
     * Q18 under a worker: 40 caller-id jobs (producer retries a failed enqueue under the same id) while the
     * replies are slower than the socket timeout in three 1 s windows: every job is stored once and run
     * exactly once (attempt 1), nothing dead, nothing left.
     */
    @Test
    void worker_slowReplyWindows_everyJobStoredOnceAndRunOnce(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "slow-worker", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(10))
                    .maxAttempts(1)
                    .build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "slow-worker", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(10))
                    .maxAttempts(1)
                    .build();
            Map<String, List<Integer>> runs = new ConcurrentHashMap<>();
            int jobs = 40;
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(proxied, job -> {
                        runs.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>())
                                .add(job.attempts());
                        Thread.sleep(10);
                    })
                    .concurrency(2)
                    .fallbackPoll(Duration.ofMillis(100))
                    .build()
                    .start()) {
                CompletableFuture<Void> faults = CompletableFuture.runAsync(() -> {
                    try {
                        for (int w = 0; w < 3; w++) {
                            Thread.sleep(300);
                            proxy.slowReplies(Duration.ofMillis(1_000));
                            Thread.sleep(1_000);
                            proxy.heal();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                long connectionsBefore = proxy.acceptedConnections();
                int failedCalls = 0;
                for (int i = 0; i < jobs; i++) {
                    String id = "job-" + i;
                    while (true) {
                        try {
                            proxied.enqueue(id, new Msg("slow", i), Duration.ZERO);
                            break;
                        } catch (DelayQueueException e) {
                            failedCalls++; // outcome unknown: resend under the same id
                        }
                    }
                    Thread.sleep(80);
                }
                faults.get(30, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> runs.size() == jobs
                                && direct.size(JobState.DUE) + direct.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
                assertThat(proxy.acceptedConnections() - connectionsBefore)
                        .as(
                                "connections given up on a late reply and replaced (the fault hit); %s enqueue calls"
                                        + " failed after every try",
                                failedCalls)
                        .isGreaterThan(3);
            }
            assertThat(direct.size(JobState.DEAD)).as("dead letters").isZero();
            assertThat(runs).hasSize(jobs);
            runs.forEach(
                    (id, attempts) -> assertThat(attempts).as("runs of %s", id).containsExactly(1));
            assertThat(direct.stats().acked()).isEqualTo(jobs);
        }
    }

    /**
     * Q19: {@code maxmemory} reached with {@code noeviction}: an enqueue is refused with a {@link
     * DelayQueueException} naming the queue and Redis's OOM reply; a job claimed before is still acked, and a
     * worker started under OOM runs and acks every stored job once (claims and acks pass), one of them in a
     * handler 2.5× slower than the 1 s visibility timeout (renewals pass); nothing is dead; once memory is
     * freed enqueues work again and are run.
     */
    @Test
    void enqueue_maxmemoryReached_refusedClearly_storedJobsStillRunAndAcked() throws Exception {
        try (RedisServer server = RedisServer.builder()
                        .setting("maxmemory-policy", "noeviction")
                        .start();
                RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> queue = DelayQueue.builder(redis, "oom", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .build();
            List<String> stored = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                stored.add(queue.enqueue(new Msg("stored", i)).id());
            }
            Job<Msg> claimedBefore = queue.claim(1).get(0);
            for (int i = 0; i < 20; i++) { // 2 MB in small writes: no large query buffer in used_memory
                redis.set("filler:" + i, "x".repeat(100_000));
            }
            server.config("maxmemory", String.valueOf(usedMemory(redis) - 1_000_000));

            assertThatThrownBy(() -> queue.enqueue(new Msg("refused", 0)))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("queue 'oom'")
                    .hasMessageContaining("OOM")
                    .hasMessageContaining("maxmemory");
            assertThatThrownBy(() -> queue.enqueue("with-id", new Msg("refused", 1), Duration.ZERO))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("OOM");
            assertThat(queue.get("with-id")).isEmpty();
            assertThat(queue.ack(claimedBefore)).as("an ack under OOM").isTrue();

            Map<String, List<Integer>> runs = new ConcurrentHashMap<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                        runs.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>())
                                .add(job.attempts());
                        if (job.payload().n() == 1) {
                            Thread.sleep(2_500); // 2.5 visibility timeouts: only renewals keep its claim
                        }
                    })
                    .concurrency(2) // a free handler keeps claiming: an expired claim would be run again
                    .fallbackPoll(Duration.ofMillis(100))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT) == 0);
                assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(stored.subList(1, stored.size()));
                assertThat(usedMemory(redis)).as("still over the limit").isGreaterThan(maxMemory(redis));

                for (int i = 0; i < 20; i++) {
                    redis.del("filler:" + i);
                }
                String after = queue.enqueue(new Msg("after", 0)).id();
                await().atMost(Duration.ofSeconds(10)).until(() -> runs.containsKey(after));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> queue.get(after).isEmpty());
                assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
            }
            assertThat(queue.size(JobState.DEAD)).isZero();
            runs.forEach(
                    (id, attempts) -> assertThat(attempts).as("runs of %s", id).containsExactly(1));
            assertThat(queue.stats().acked()).isEqualTo(21);
        }
    }

    private static void warmUp(UnifiedJedis redis) {
        DelayQueue<Msg> warm = DelayQueue.builder(redis, "warm-up", Msg.class).build();
        warm.enqueue("w1", new Msg("w", 1), Duration.ZERO);
        warm.nack(warm.claim(1).get(0), "warm", Duration.ZERO);
        warm.ack(warm.claim(1).get(0));
    }

    static long usedMemory(UnifiedJedis redis) {
        return infoField(redis, "used_memory");
    }

    static long maxMemory(UnifiedJedis redis) {
        return infoField(redis, "maxmemory");
    }

    private static long infoField(UnifiedJedis redis, String field) {
        for (String line : redis.info("memory").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        throw new IllegalStateException("no " + field + " in INFO memory");
    }
}
