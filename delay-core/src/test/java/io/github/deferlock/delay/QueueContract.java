package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The queue contract, written once; {@link QueueContractIT} runs it against a standalone server, a
 * three-master cluster and a sentinel group (one {@code @Nested} subclass each). Every client is of the
 * topology's own kind, so a {@code CROSSSLOT} or a {@code READONLY} anywhere fails the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class QueueContract {

    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private UnifiedJedis other;

    /** Starts the topology under test. */
    abstract RedisDeployment start();

    final RedisDeployment deployment() {
        return deployment;
    }

    final UnifiedJedis redis() {
        return redis;
    }

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
        other = deployment.newClient();
    }

    @AfterAll
    final void stopDeployment() {
        other.close();
        redis.close();
        deployment.close();
    }

    @BeforeEach
    @AfterEach
    final void flush() {
        deployment.flushAll();
    }

    private DelayQueue<Msg> queue(UnifiedJedis client, String name) {
        return DelayQueue.builder(client, name, Msg.class)
                .maxAttempts(3)
                .backoff(Backoff.fixed(Duration.ofMillis(50)))
                .build();
    }

    /** Subscribers of {@code channel} on every master (plain) or on the slot's master (sharded). */
    private long wakeSubscribers(String channel) {
        long n = 0;
        for (RedisServer m : deployment.masters()) {
            try (Jedis j = m.newConnection()) {
                n += j.pubsubNumSub(channel).getOrDefault(channel, 0L);
                if (m.versionAtLeast(7, 0)) {
                    List<?> reply = (List<?>) j.sendCommand(Protocol.Command.PUBSUB, "SHARDNUMSUB", channel);
                    n += (Long) reply.get(1);
                }
            }
        }
        return n;
    }

    @Test
    void enqueue_claimAck_deletesEveryKeyOfTheJob() {
        DelayQueue<Msg> q = queue(redis, "orders");
        EnqueueResult r = q.enqueue(new Msg("hi", 1));
        assertThat(r.duplicate()).isFalse();
        // the job is visible through another client of the same topology
        DelayQueue<Msg> seen = queue(other, "orders");
        assertThat(seen.size(JobState.DUE)).isEqualTo(1);

        List<Job<Msg>> jobs = seen.claim(10);
        assertThat(jobs).extracting(Job::id).containsExactly(r.id());
        assertThat(jobs.get(0).payload()).isEqualTo(new Msg("hi", 1));
        assertThat(q.get(r.id()).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
        assertThat(q.claim(10)).isEmpty();

        assertThat(seen.ack(jobs.get(0))).isTrue();
        assertThat(q.get(r.id())).isEmpty();
        assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT) + q.size(JobState.DEAD))
                .isZero();
    }

    @Test
    void nack_retriesThenDeadLettersAndRequeueRevives() {
        DelayQueue<Msg> q = queue(redis, "flaky");
        String id = q.enqueue(new Msg("fail", 1)).id();
        for (int attempt = 1; attempt <= 3; attempt++) {
            List<Job<Msg>> jobs = new ArrayList<>();
            await().atMost(Duration.ofSeconds(5)).until(() -> jobs.addAll(q.claim(1)));
            assertThat(jobs.get(0).id()).isEqualTo(id);
            assertThat(jobs.get(0).attempts()).isEqualTo(attempt);
            assertThat(q.nack(jobs.get(0), "boom " + attempt, null)).isTrue();
        }
        assertThat(q.size(JobState.DEAD)).isEqualTo(1);
        assertThat(q.get(id).orElseThrow().state()).isEqualTo(JobState.DEAD);
        List<DeadLetter> dead = q.deadLetters().list(10);
        assertThat(dead).extracting(DeadLetter::id).containsExactly(id);
        assertThat(dead.get(0).reason()).isEqualTo("boom 3");
        assertThat(dead.get(0).attempts()).isEqualTo(3);

        assertThat(q.deadLetters().requeue(id)).isTrue();
        assertThat(q.claim(10)).extracting(Job::id).containsExactly(id);
    }

    @Test
    void enqueue_withDelay_isNeverClaimedBeforeItsServerDueTime() {
        DelayQueue<Msg> q = queue(redis, "later");
        EnqueueResult r = q.enqueue(new Msg("later", 1), Duration.ofMillis(300));
        assertThat(q.claim(10)).isEmpty();
        List<Job<Msg>> jobs = new ArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> jobs.addAll(q.claim(10)));
        // the queue's keys live on one node, whose clock decided; it has passed the due time
        assertThat(ServerTime.now(redis)).isAfterOrEqualTo(r.dueAt());
        assertThat(jobs).extracting(Job::id).containsExactly(r.id());
    }

    @Test
    void reschedule_claimedJob_comesBackLaterWithNewPayload() {
        DelayQueue<Msg> q = queue(redis, "resched");
        String id = q.enqueue(new Msg("v1", 1)).id();
        Job<Msg> job = q.claim(1).get(0);
        assertThat(q.reschedule(job, Duration.ofMillis(200), new Msg("v2", 2))).isTrue();
        assertThat(q.get(id).orElseThrow().state()).isEqualTo(JobState.DUE);
        assertThat(q.claim(1)).isEmpty();
        List<Job<Msg>> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> again.addAll(q.claim(1)));
        assertThat(again.get(0).id()).isEqualTo(id);
        assertThat(again.get(0).payload()).isEqualTo(new Msg("v2", 2));
        assertThat(q.ack(again.get(0))).isTrue();
    }

    @Test
    void cancel_dueJob_isNeverDelivered() {
        DelayQueue<Msg> q = queue(redis, "cancel");
        String id = q.enqueue(new Msg("x", 1)).id();
        String keep = q.enqueue(new Msg("y", 2)).id();
        assertThat(q.cancel(id)).isTrue();
        assertThat(q.cancel(id)).isFalse();
        assertThat(q.get(id)).isEmpty();
        assertThat(q.claim(10)).extracting(Job::id).containsExactly(keep);
    }

    @Test
    void enqueue_sameIdTwice_isOneJob() {
        DelayQueue<Msg> q = queue(redis, "idem");
        EnqueueResult first = q.enqueue("order-42", new Msg("a", 1), Duration.ofMinutes(5));
        EnqueueResult second = queue(other, "idem").enqueue("order-42", new Msg("b", 2), Duration.ZERO);
        assertThat(first.duplicate()).isFalse();
        assertThat(second.duplicate()).isTrue();
        assertThat(second.dueAt()).isEqualTo(first.dueAt());
        assertThat(q.size(JobState.DUE)).isEqualTo(1);
        List<EnqueueResult> batch = q.enqueueAll(List.of(
                NewJob.of("order-42", new Msg("c", 3), Duration.ZERO), NewJob.of(new Msg("d", 4), Duration.ZERO)));
        assertThat(batch).extracting(EnqueueResult::duplicate).containsExactly(true, false);
        assertThat(q.claim(10)).extracting(Job::id).containsExactly(batch.get(1).id());
    }

    @Test
    void worker_idle_isWokenByTheEnqueueNoticeLongBeforeItsFallbackPoll() {
        DelayQueue<Msg> q = queue(redis, "wake");
        DelayQueue<Msg> producer = queue(other, "wake");
        Map<String, Instant> handled = new ConcurrentHashMap<>();
        String channel = new String(q.wakeChannel(), java.nio.charset.StandardCharsets.UTF_8);
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> handled.put(job.id(), Instant.now()))
                .fallbackPoll(Duration.ofSeconds(5))
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> wakeSubscribers(channel) >= 1);
            if (deployment.kind() == RedisDeployment.Kind.CLUSTER
                    && deployment.masters().get(0).versionAtLeast(7, 0)) {
                // Redis 7.0+ cluster: the worker holds a sharded subscription on the queue's own master
                try (Jedis j = deployment.nodeFor(channel).newConnection()) {
                    List<?> reply = (List<?>) j.sendCommand(Protocol.Command.PUBSUB, "SHARDNUMSUB", channel);
                    assertThat((Long) reply.get(1)).isEqualTo(1L);
                }
            }
            // the worker has polled once at start and found nothing; it now waits up to 5 s unless woken
            for (int round = 0; round < 2; round++) {
                Instant sent = Instant.now();
                Duration delay = round == 0 ? Duration.ZERO : Duration.ofMillis(300);
                String id = producer.enqueue(new Msg("now", round), delay).id();
                await().atMost(Duration.ofSeconds(3)).until(() -> handled.containsKey(id));
                assertThat(Duration.between(sent, handled.get(id)))
                        .as("round %d on %s", round, deployment)
                        .isLessThan(Duration.ofSeconds(2).plus(delay));
            }
            assertThat(worker.isRunning()).isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> wakeSubscribers(channel) == 0);
    }
    /**
     * Pause, on every topology: two independent workers (separate clients and queue objects, as two processes
     * have) hold slow jobs; after {@code pause()} returns neither starts another job, both finish and ack the
     * ones they hold, enqueues are stored, a third worker started while paused claims nothing; {@code resume()}
     * wakes them by its notice long before their 5 s fallback poll.
     */
    @Test
    void pause_stopsEveryWorker_heldJobsFinish_enqueuesGoOn_resumeWakesThemAtOnce() throws Exception {
        DelayQueue<Msg> a = queue(redis, "pausable");
        DelayQueue<Msg> b = queue(other, "pausable");
        Map<String, Long> started = new ConcurrentHashMap<>(); // job id -> System.nanoTime() at handler start
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        JobHandler<Msg> handler = job -> {
            started.put(job.id(), System.nanoTime());
            if (job.id().startsWith("held-")) {
                release.await();
            }
        };
        try (DelayQueueWorker<Msg> wa = DelayQueueWorker.builder(a, handler)
                        .concurrency(2)
                        .fallbackPoll(Duration.ofSeconds(5))
                        .build()
                        .start();
                DelayQueueWorker<Msg> wb = DelayQueueWorker.builder(b, handler)
                        .concurrency(2)
                        .fallbackPoll(Duration.ofSeconds(5))
                        .build()
                        .start()) {
            for (int i = 0; i < 4; i++) {
                a.enqueue("held-" + i, new Msg("held", i), Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 4); // 2 per worker

            assertThat(b.pause()).isTrue();
            long pausedAt = System.nanoTime();
            assertThat(a.isPaused()).isTrue();
            for (int i = 0; i < 10; i++) {
                assertThat(b.enqueue("later-" + i, new Msg("later", i), Duration.ZERO)
                                .duplicate())
                        .isFalse();
            }
            assertThat(a.claim(10)).as("a claim while paused").isEmpty();
            release.countDown(); // the held jobs finish and are acked while paused
            await().atMost(Duration.ofSeconds(10)).until(() -> a.stats().inFlight() == 0);
            assertThat(a.stats().acked()).isEqualTo(4);
            try (DelayQueueWorker<Msg> wc = DelayQueueWorker.builder(queue(other, "pausable"), handler)
                    .fallbackPoll(Duration.ofSeconds(5))
                    .build()
                    .start()) {
                // an observation window: every worker had room, jobs due and a poll or notice in it
                Thread.sleep(1500);
                QueueStats paused = a.stats();
                assertThat(paused.paused()).isTrue();
                assertThat(paused.pausedSince()).isNotNull();
                assertThat(paused.due()).isEqualTo(10);
                assertThat(started.keySet()).noneMatch(id -> id.startsWith("later-"));
                assertThat(wc.isRunning()).isTrue();
            }
            assertThat(started.values()).allMatch(t -> t - pausedAt < 0); // nothing started after pause()

            long resumedAt = System.nanoTime();
            assertThat(a.resume()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 14);
            long lastStart =
                    started.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(Duration.ofNanos(lastStart - resumedAt))
                    .as("all started after resume on %s", deployment)
                    .isLessThan(Duration.ofMillis(2500));
            assertThat(a.stats().paused()).isFalse();
            assertThat(wa.isRunning() && wb.isRunning()).isTrue();
        }
    }
}
