package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The worker's claim-ahead buffer and batched acks: acks ride along with claims (far fewer script calls than
 * jobs), pending acks are sent before close returns, buffered jobs are given back at close without spending
 * an attempt, and slow handlers are not handed jobs whose visibility timeout runs out in the buffer.
 */
@ExtendWith(RedisExtension.class)
final class WorkerBatchingIT {

    @Test
    void underLoad_acksRideAlongWithClaims_farFewerScriptCallsThanJobs(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server);
                Jedis stats = server.newConnection()) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "load", Msg.class).build();
            int n = 3000;
            List<Msg> payloads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                payloads.add(new Msg("m", i));
            }
            Set<String> ids = ConcurrentHashMap.newKeySet();
            q.enqueueAll(payloads, Duration.ZERO).forEach(r -> ids.add(r.id()));
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            Set<String> cancelled = ConcurrentHashMap.newKeySet();
            long before = scriptCalls(stats);
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        handled.merge(job.id(), 1, Integer::sum);
                        if (job.payload().n() % 100 == 0) { // its ack is refused within a batch of good ones
                            assertThat(q.cancel(job.id())).isTrue();
                            cancelled.add(job.id());
                        }
                    })
                    .concurrency(2)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == n);
                await().atMost(Duration.ofSeconds(5)).until(() -> q.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.isRunning()).isTrue();
            }
            long calls = scriptCalls(stats) - before - cancelled.size();
            System.out.printf("%d jobs handled and acked with %d claim/ack script calls%n", n, calls);
            assertThat(handled.keySet()).isEqualTo(ids);
            assertThat(handled.values()).allMatch(c -> c == 1);
            assertThat(cancelled).hasSize(n / 100);
            assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT) + q.size(JobState.DEAD))
                    .isZero();
            // one ack per job would be 3000 calls on top of the claims
            assertThat(calls).isLessThan(n / 3); // measured: about 100
        }
    }

    @Test
    void close_sendsThePendingAcksBeforeItReturns(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "flush", Msg.class).build();
            CountDownLatch started = new CountDownLatch(3);
            CountDownLatch gate = new CountDownLatch(1);
            AtomicInteger finished = new AtomicInteger();
            DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        started.countDown();
                        gate.await();
                        finished.incrementAndGet();
                    })
                    .concurrency(4)
                    .ackDelay(Duration.ofHours(1)) // acks go only with a claim, or at close
                    .fallbackPoll(Duration.ofHours(1))
                    .build()
                    .start();
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(server, "flush"));
            List<EnqueueResult> jobs = q.enqueueAll(
                    List.of(NewJob.of(new Msg("a", 1)), NewJob.of(new Msg("b", 2)), NewJob.of(new Msg("c", 3))));
            // one claim took all three with room to spare, so the next is due at their visibility deadline (30 s)
            await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
            gate.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> finished.get() == 3);
            assertThat(q.size(JobState.IN_FLIGHT))
                    .as("finished, their acks pending in the worker")
                    .isEqualTo(3);

            assertThat(worker.close(Duration.ofSeconds(10))).isTrue();

            assertThat(q.size(JobState.IN_FLIGHT) + q.size(JobState.DUE)).isZero();
            for (EnqueueResult job : jobs) {
                assertThat(q.get(job.id())).isEmpty();
            }
        }
    }

    @Test
    void close_givesTheBufferedJobsBackAtOnceWithTheirAttemptsUnchanged(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "buffered", Msg.class).build();
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            // every run by id@attempt, with the error the claim recorded for the attempt before it
            Map<String, Integer> runsByAttempt = new ConcurrentHashMap<>();
            Map<String, String> errorBefore = new ConcurrentHashMap<>();
            CountDownLatch blocking = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            JobHandler<Msg> handler = job -> {
                if (job.payload().text().equals("block")) {
                    blocking.countDown();
                    gate.await();
                }
                handled.merge(job.id(), 1, Integer::sum);
                runsByAttempt.merge(job.id() + "@" + job.attempts(), 1, Integer::sum);
                job.lastError().ifPresent(e -> errorBefore.put(job.id() + "@" + job.attempts(), e));
            };
            DelayQueueWorker<Msg> first =
                    DelayQueueWorker.builder(q, handler).build().start();
            warmUp(q, handled); // fast handler runs: the worker now claims ahead
            List<Msg> payloads = new ArrayList<>();
            payloads.add(new Msg("block", 0));
            for (int i = 1; i <= 20; i++) {
                payloads.add(new Msg("waits", i));
            }
            List<String> ids = q.enqueueAll(payloads, Duration.ZERO).stream()
                    .map(EnqueueResult::id)
                    .toList();
            await().atMost(Duration.ofSeconds(10)).until(() -> blocking.getCount() == 0);
            await().atMost(Duration.ofSeconds(10)).until(() -> q.size(JobState.IN_FLIGHT) == 21);
            assertThat(handled).isEmpty(); // one thread, blocked: the other 20 wait in the buffer

            assertThat(first.close(Duration.ofMillis(300))).isFalse(); // the blocked handler is interrupted

            for (String id : ids.subList(1, 21)) { // given back by close itself, not after 30 s of visibility
                JobInfo info = q.get(id).orElseThrow();
                assertThat(info.state()).isEqualTo(JobState.DUE);
                assertThat(info.attempts()).as("attempts of %s", id).isZero();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> q.get(ids.get(0)).map(JobInfo::state).orElse(null) == JobState.DUE);
            assertThat(q.get(ids.get(0)).orElseThrow().attempts()).isZero();
            assertThat(handled).isEmpty();

            gate.countDown();
            try (DelayQueueWorker<Msg> second =
                    DelayQueueWorker.builder(q, handler).concurrency(4).build().start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 21);
                assertThat(second.isRunning()).isTrue();
            }
            assertThat(handled.keySet()).containsExactlyInAnyOrderElementsOf(ids);
            // no attempt ran twice; a job runs again only on a later attempt, after its claim expired (the
            // at-least-once rule: a starved machine can stall a run past the visibility timeout)
            assertThat(runsByAttempt.values()).allMatch(c -> c == 1);
            runsByAttempt.keySet().stream().filter(k -> !k.endsWith("@1")).forEach(k -> assertThat(errorBefore.get(k))
                    .as("run %s of a job that ran before", k)
                    .startsWith("visibility timeout expired"));
            assertThat(q.size(JobState.IN_FLIGHT) + q.size(JobState.DUE)).isZero();
        }
    }

    @Test
    void slowHandlers_areNotHandedMoreJobsThanTheyStartSoon(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "slow", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .build();
            List<Long> leftAtStartMs = new CopyOnWriteArrayList<>();
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            AtomicLong mostInFlight = new AtomicLong();
            List<Msg> payloads = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                payloads.add(new Msg("slow", i));
            }
            q.enqueueAll(payloads, Duration.ZERO);
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        leftAtStartMs.add(Duration.between(Instant.now(), job.visibleUntil())
                                .toMillis());
                        mostInFlight.accumulateAndGet(q.size(JobState.IN_FLIGHT), Math::max);
                        handled.merge(job.id() + "@" + job.attempts(), 1, Integer::sum);
                        TimeUnit.MILLISECONDS.sleep(100); // the work: 100 ms, a tenth of the visibility timeout
                    })
                    .concurrency(2)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 20);
                assertThat(worker.isRunning()).isTrue();
            }
            System.out.printf(
                    "slow handlers: at most %d in flight, least visibility left at start %d ms%n",
                    mostInFlight.get(),
                    leftAtStartMs.stream().mapToLong(Long::longValue).min().orElse(-1));
            assertThat(handled.keySet()).allMatch(k -> k.endsWith("@1"));
            // 2 running + 2 claimed ahead (they start within 100 ms) + acks not sent yet; not all 20 at once
            assertThat(mostInFlight.get()).isLessThanOrEqualTo(6);
            assertThat(leftAtStartMs).allMatch(left -> left >= 500);
        }
    }

    @Test
    void handlersTurnSlow_bufferedJobsAreGivenBackRatherThanStartedLate(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "turn", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .build();
            List<Long> leftAtStartMs = new CopyOnWriteArrayList<>();
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            JobHandler<Msg> handler = job -> {
                if (!job.payload().text().equals("warm-up")) {
                    leftAtStartMs.add(
                            Duration.between(Instant.now(), job.visibleUntil()).toMillis());
                }
                handled.merge(job.id() + "@" + job.attempts(), 1, Integer::sum);
                TimeUnit.MILLISECONDS.sleep(job.payload().n()); // the work
            };
            try (DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, handler).build().start()) {
                List<Msg> warmUp = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    warmUp.add(new Msg("warm-up", 0));
                }
                q.enqueueAll(warmUp, Duration.ZERO); // fast: the worker now claims ahead
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 10);
                List<Msg> payloads = new ArrayList<>();
                payloads.add(new Msg("slow", 700));
                for (int i = 0; i < 5; i++) {
                    payloads.add(new Msg("next", 200));
                }
                List<String> ids = q.enqueueAll(payloads, Duration.ZERO).stream()
                        .map(EnqueueResult::id)
                        .toList();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> ids.stream().allMatch(id -> q.get(id).isEmpty()));
                assertThat(worker.isRunning()).isTrue();
                for (String id : ids) { // each ran once, on its first attempt: given back, not retried
                    assertThat(handled).containsEntry(id + "@1", 1);
                }
                assertThat(handled).hasSize(16);
            }
            // the five claimed with the slow one waited 700 ms: started then, they would have had 300 ms left
            assertThat(leftAtStartMs).hasSize(6).allMatch(left -> left >= 450);
        }
    }

    @Test
    void handlersStall_bufferedJobsAreGivenBackBeforeTheirVisibilityRunsOut_andEachRunsOnceLater(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "stall", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(2)) // buffered jobs are given back after 1 s
                    .maxAttempts(1) // an expiry in flight would dead-letter a job at once
                    .build();
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            CountDownLatch blocked = new CountDownLatch(2);
            CountDownLatch gate = new CountDownLatch(1);
            JobHandler<Msg> handler = job -> {
                if (job.payload().text().equals("block")) { // a long job (a hung dependency) that keeps its lease
                    blocked.countDown();
                    while (!gate.await(200, TimeUnit.MILLISECONDS)) {
                        q.extend(job, Duration.ofSeconds(2));
                    }
                }
                handled.merge(job.id() + "@" + job.attempts(), 1, Integer::sum);
            };
            try (DelayQueueWorker<Msg> worker =
                    DelayQueueWorker.builder(q, handler).concurrency(2).build().start()) {
                warmUp(q, handled); // fast handler runs: the worker now claims ahead
                List<Msg> payloads = new ArrayList<>(List.of(new Msg("block", 0), new Msg("block", 1)));
                for (int i = 0; i < 20; i++) {
                    payloads.add(new Msg("waits", i));
                }
                List<String> ids = q.enqueueAll(payloads, Duration.ZERO).stream()
                        .map(EnqueueResult::id)
                        .toList();
                List<String> waiting = ids.subList(2, 22);
                await().atMost(Duration.ofSeconds(10)).until(() -> blocked.getCount() == 0);

                // both threads stuck: the dispatcher gives the buffered jobs back (no handler ever takes them),
                // attempts unchanged, long before their visibility timeout could spend or dead-letter them
                await().atMost(Duration.ofSeconds(10)).until(() -> waiting.stream()
                        .map(id -> q.get(id).orElseThrow())
                        .allMatch(info -> info.state() == JobState.DUE && info.attempts() == 0));
                // and while the handlers stay stuck it claims nothing ahead for them again
                await().during(Duration.ofMillis(1500))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> q.size(JobState.IN_FLIGHT) == 2 && q.size(JobState.DUE) == 20);
                assertThat(q.size(JobState.DEAD)).isZero();
                assertThat(handled).isEmpty();

                gate.countDown();
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 22);
                await().atMost(Duration.ofSeconds(5)).until(() -> q.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.isRunning()).isTrue();
                for (String id : ids) { // each ran once, on its first attempt
                    assertThat(handled).containsEntry(id + "@1", 1);
                }
            }
            assertThat(handled).hasSize(22);
            assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT) + q.size(JobState.DEAD))
                    .isZero();
        }
    }

    @Test
    void waitForReplicas_backlogWithFastHandlers_acksAreSentWhileClaimsKeepSucceeding(RedisServer server) {
        server.config("repl-diskless-sync-delay", "0");
        try (RedisServer replica = RedisServer.builder()
                        .setting("replicaof", server.host() + " " + server.port())
                        .start();
                RedisClient redis = Clients.pooled(server)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> linkUp(replica));
            DelayQueue<Msg> q = DelayQueue.builder(redis, "wait-drain", Msg.class)
                    .waitForReplicas(1, Duration.ofSeconds(5))
                    .build();
            int n = 5000;
            long most = drain(q, n, 4, 0);
            System.out.printf("waitForReplicas drain: at most %d of %d jobs in flight%n", most, n);
            // without acks during the drain every handled job stays in flight until the due set is empty
            assertThat(most).isLessThan(n / 5);
        }
    }

    @Test
    void batchSizeOver500_acksBeyondWhatAClaimCarriesDoNotPileUp(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(redis, "big-batch", Msg.class).build();
            int n = 20_000;
            long most = drain(q, n, 8, 1000);
            System.out.printf("batchSize 1000 drain: at most %d of %d jobs in flight%n", most, n);
            // 8 running + 1000 buffered + the acks of the last claim round (at most 500 wait for the next)
            assertThat(most).isLessThan(2500);
        }
    }

    /**
     * Runs a worker with a no-op handler on a backlog of {@code n} jobs and returns the most jobs seen in
     * flight (claimed and not yet acked), sampled by every 50th handler run; checks each job ran once.
     */
    private static long drain(DelayQueue<Msg> q, int n, int concurrency, int batchSize) {
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            payloads.add(new Msg("m", i));
        }
        q.enqueueAll(payloads, Duration.ZERO);
        Set<String> ids = ConcurrentHashMap.newKeySet();
        AtomicInteger runs = new AtomicInteger();
        AtomicLong most = new AtomicLong();
        DelayQueueWorker.Builder<Msg> builder = DelayQueueWorker.builder(q, job -> {
                    ids.add(job.id());
                    if (runs.incrementAndGet() % 50 == 0) {
                        most.accumulateAndGet(q.size(JobState.IN_FLIGHT), Math::max);
                    }
                })
                .concurrency(concurrency);
        if (batchSize > 0) {
            builder.batchSize(batchSize);
        }
        try (DelayQueueWorker<Msg> worker = builder.build().start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> ids.size() == n);
            await().atMost(Duration.ofSeconds(10)).until(() -> q.size(JobState.IN_FLIGHT) == 0);
            assertThat(worker.isRunning()).isTrue();
        }
        assertThat(runs.get()).isEqualTo(n);
        assertThat(q.size(JobState.DUE) + q.size(JobState.DEAD)).isZero();
        return most.get();
    }

    @Test
    void jobHeldNoAckPending_dispatcherSleeps_evenWithAckDelayZero_andTheAckGoesOutPromptly(RedisServer server) {
        for (Duration ackDelay : List.of(Duration.ZERO, Duration.ofMillis(5))) {
            try (RedisClient redis = Clients.pooled(server)) {
                String name = "held-" + ackDelay.toMillis();
                DelayQueue<Msg> q = DelayQueue.builder(redis, name, Msg.class).build();
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch gate = new CountDownLatch(1);
                try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                            started.countDown();
                            gate.await();
                        })
                        .ackDelay(ackDelay)
                        .fallbackPoll(Duration.ofHours(1)) // only a notice or an ack wakes it
                        .build()
                        .start()) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(server, name));
                    String id = q.enqueue(new Msg("held", 0)).id();
                    await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
                    long before = worker.dispatcherRounds();
                    // one job held, no ack pending: nothing to do until the handler finishes
                    await().during(Duration.ofSeconds(1))
                            .atMost(Duration.ofSeconds(5))
                            .until(() -> worker.dispatcherRounds() - before <= 3);
                    gate.countDown();
                    // the ack wakes the dispatcher (no claim comes for an hour)
                    await().atMost(Duration.ofSeconds(5)).until(() -> q.get(id).isEmpty());
                    assertThat(worker.dispatcherRounds() - before)
                            .as("ackDelay %s", ackDelay)
                            .isLessThan(20);
                }
            }
        }
    }

    @Test
    void close_shortTimeout_waitsForTheClaimInProgressThatCarriesTheLastAcks(RedisServer server) {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient direct = Clients.pooled(server);
                // a round trip through the proxy below takes 2 s and more: the default 2 s socket timeout
                // would fail the claim now and then (its jobs then stay in flight, which is not what this tests)
                RedisClient proxied = Clients.pooled(proxy.hostAndPort(), 15_000)) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(proxied, "close-call", Msg.class).build();
            DelayQueue<Msg> observer =
                    DelayQueue.builder(direct, "close-call", Msg.class).build();
            List<Job<Msg>> handled = new CopyOnWriteArrayList<>();
            DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, handled::add)
                    .concurrency(4)
                    .ackDelay(Duration.ofHours(1)) // acks go only with a claim, or at close
                    .fallbackPoll(Duration.ofHours(1))
                    .build()
                    .start();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(server, "close-call"));
                List<String> ids = observer
                        .enqueueAll(List.of(
                                NewJob.of(new Msg("a", 1)), NewJob.of(new Msg("b", 2)), NewJob.of(new Msg("c", 3))))
                        .stream()
                        .map(EnqueueResult::id)
                        .toList();
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
                assertThat(observer.size(JobState.IN_FLIGHT)).as("acks pending").isEqualTo(3);

                proxy.latency(Duration.ofSeconds(1)); // every chunk either way: 1 s
                String trigger = observer.enqueue(new Msg("trigger", 0)).id();
                // the notice, then the claim carrying the three acks, reached the server; its reply is a second away
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() ->
                                ids.stream().allMatch(id -> observer.get(id).isEmpty())
                                        && observer.get(trigger).orElseThrow().state() == JobState.IN_FLIGHT);

                assertThat(worker.close(Duration.ofMillis(50))).isTrue();

                assertThat(handled).hasSize(3).allMatch(Job::isSettled);
                JobInfo info = observer.get(trigger).orElseThrow();
                assertThat(info.state()).as("claimed while closing: given back").isEqualTo(JobState.DUE);
                assertThat(info.attempts()).isZero();
            } finally {
                proxy.heal();
                worker.close();
            }
        }
    }

    /** Runs 20 jobs through the started worker (fast handler runs: it claims ahead from now on), then clears. */
    private static void warmUp(DelayQueue<Msg> q, Map<String, Integer> handled) {
        List<Msg> warmUp = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            warmUp.add(new Msg("warm-up", i));
        }
        q.enqueueAll(warmUp, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 20);
        handled.clear();
    }

    private static boolean linkUp(RedisServer replica) {
        try (Jedis c = replica.newConnection()) {
            return c.info("replication").contains("master_link_status:up");
        }
    }

    private static boolean subscribed(RedisServer server, String queue) {
        try (Jedis c = server.newConnection()) {
            return c.pubsubNumSub("deferlock:dq:{" + queue + "}:wake").values().stream()
                    .anyMatch(n -> n > 0);
        }
    }

    /** Script calls (EVALSHA and EVAL) the server has run, by INFO commandstats. */
    private static long scriptCalls(Jedis stats) {
        long total = 0;
        for (String line : stats.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                int at = line.indexOf("calls=") + "calls=".length();
                total += Long.parseLong(line.substring(at, line.indexOf(',', at)));
            }
        }
        return total;
    }
}
