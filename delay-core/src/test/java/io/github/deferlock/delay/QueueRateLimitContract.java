package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The per-queue rate limit ({@link DelayQueue#rateLimit(QueueRateLimit)}), written once; {@link QueueRateLimitIT}
 * runs it on a standalone server and a cluster.
 */
abstract class QueueRateLimitContract extends TopologyContract {
    private static final int RATE = 100;
    private static final int BURST = 5; // QueueRateLimit.of's default for 100: 100 / 20
    /**
     * A start is timed by the server: its claim's visibility deadline (the in-flight zset's score, server ms, read
     * by the handler through {@code get}) less the visibility timeout. Milliseconds floor the server's microseconds,
     * so two starts 1 s apart may look 999 ms apart: the bound asserted is rate + burst - 1 plus this one.
     */
    private static final int MEASUREMENT_SLACK = 1;

    private record Start(long nanos, int attempt) {}

    @Test
    void claim_limitCutsTheBatch_jobsOverItStayDueWithNoAttempt_removalRestoresFullBatches() {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "cut", Msg.class).build();
        QueueRateLimit limit = QueueRateLimit.of(10, Duration.ofSeconds(100)); // one start per 10 s
        assertThat(q.rateLimit()).isEmpty();
        assertThat(q.rateLimit(limit)).isTrue();
        assertThat(q.rateLimit(limit)).isFalse(); // idempotent
        assertThat(q.rateLimit()).contains(limit);
        for (int i = 0; i < 20; i++) {
            q.enqueue("job-" + i, new Msg("m", i), Duration.ZERO);
        }

        assertThat(q.claim(50)).hasSize(1); // burst 1 (10 / 20 -> 1)
        assertThat(q.claim(50)).isEmpty();
        assertThat(q.stats().due()).isEqualTo(19);
        assertThat(q.get("job-19").orElseThrow().attempts()).isZero();
        assertThat(q.stats().deadLettered()).isZero();

        assertThat(q.rateLimit(limit.withBurst(4))).isTrue(); // the new limit applies at once
        // burst 4 allows 4 in a row: 1 was taken, 3 are left
        assertThat(q.claim(50)).hasSize(3);

        assertThat(q.removeRateLimit()).isTrue();
        assertThat(q.removeRateLimit()).isFalse();
        assertThat(q.rateLimit()).isEmpty();
        assertThat(q.claim(50)).hasSizeGreaterThanOrEqualTo(15);
    }

    @Test
    void claim_rateLimitAndConcurrencyKeys_bothHold_heldJobsTakeNoStart() {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "rate-keys", Msg.class).build();
        q.concurrencyKeys().limit(1);
        q.rateLimit(QueueRateLimit.of(4, Duration.ofSeconds(100)).withBurst(4)); // 4 starts now, then 1 per 25 s
        for (int i = 0; i < 6; i++) {
            q.enqueueJob(NewJob.of("a-" + i, new Msg("a", i), Duration.ZERO).withConcurrencyKey("a"));
        }
        for (String k : List.of("b", "c", "d", "e")) {
            q.enqueueJob(NewJob.of(k, new Msg(k, 0), Duration.ZERO).withConcurrencyKey(k));
        }

        // key a's limit holds a-1..a-5 aside (no start charged for them); the rate lets 4 of the admissible start
        List<Job<Msg>> first = q.claim(50);
        assertThat(first)
                .extracting(j -> j.concurrencyKey().orElseThrow())
                .hasSize(4)
                .doesNotHaveDuplicates();
        assertThat(q.claim(50)).isEmpty(); // the burst is spent
        assertThat(q.stats().deadLettered()).isZero();
        String left = List.of("b", "c", "d", "e").stream()
                .filter(k -> first.stream()
                        .noneMatch(j -> k.equals(j.concurrencyKey().orElseThrow())))
                .findFirst()
                .orElseThrow();
        assertThat(q.get(left).orElseThrow().attempts()).isZero();
    }

    @Test
    void worker_twoWorkersOnALimitedQueue_startsWithinBound_nearTheRate_noBusyLoop_removalRestoresSpeed() {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "limited", Msg.class).build();
        q.rateLimit(QueueRateLimit.of(RATE, Duration.ofSeconds(1)));
        assertThat(q.rateLimit().orElseThrow().burst()).isEqualTo(BURST);
        int total = 1_200;
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add(new Msg("m", i));
        }
        q.enqueueAll(payloads, Duration.ZERO);

        ConcurrentLinkedQueue<Start> starts = new ConcurrentLinkedQueue<>();
        Duration visibility = q.visibilityTimeout();
        JobHandler<Msg> handler = job -> {
            long deadlineMs =
                    q.get(job.id()).orElseThrow().visibleUntil().orElseThrow().toEpochMilli();
            starts.add(new Start((deadlineMs - visibility.toMillis()) * 1_000_000L, job.attempts()));
        };
        try (UnifiedJedis second = deployment.newClient()) {
            DelayQueue<Msg> q2 =
                    DelayQueue.builder(second, "limited", Msg.class).build();
            try (DelayQueueWorker<Msg> a = DelayQueueWorker.builder(q, handler)
                            .concurrency(8)
                            .build()
                            .start();
                    DelayQueueWorker<Msg> b = DelayQueueWorker.builder(q2, handler)
                            .concurrency(8)
                            .build()
                            .start()) {
                await().alias("300 starts under the limit")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> starts.size() >= 300);
                long rounds = a.dispatcherRounds() + b.dispatcherRounds();
                List<Start> limited = new ArrayList<>(starts);

                long removed = System.nanoTime();
                assertThat(q.removeRateLimit()).isTrue();
                await().alias("all jobs handled after the limit was removed")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> starts.size() >= total);
                double drainSeconds = (System.nanoTime() - removed) / 1e9;
                int drained = total - limited.size();

                long[] t = limited.stream().mapToLong(Start::nanos).sorted().toArray();
                int worst = 0;
                int j = 0;
                for (int i = 0; i < t.length; i++) {
                    while (j < t.length && t[j] < t[i] + 1_000_000_000L) {
                        j++;
                    }
                    worst = Math.max(worst, j - i);
                }
                double span = (t[t.length - 1] - t[0]) / 1e9;
                double throughput = (t.length - BURST) / span;
                System.out.printf(
                        "queue rate limit 100/s, 2 workers (%s): %d starts in %.3f s, %.1f/s, worst 1 s window %d,"
                                + " dispatcher rounds %d; after removal %d in %.3f s (%.0f/s)%n",
                        deployment.kind(),
                        t.length,
                        span,
                        throughput,
                        worst,
                        rounds,
                        drained,
                        drainSeconds,
                        drained / drainSeconds);

                assertThat(worst)
                        .as("most starts in a 1 s window")
                        .isLessThanOrEqualTo(RATE + BURST - 1 + MEASUREMENT_SLACK);
                assertThat(throughput).as("starts per second under the limit").isGreaterThanOrEqualTo(0.95 * RATE);
                assertThat(limited).as("no attempt charged by the limit").allMatch(s -> s.attempt() == 1);
                // a dispatcher that spun while limited would make thousands of rounds a second
                assertThat(rounds).as("dispatcher rounds while limited").isLessThan(8L * limited.size());
                assertThat(drained / drainSeconds)
                        .as("jobs per second once the limit is gone")
                        .isGreaterThan(5.0 * RATE);
                assertThat(q.stats().deadLettered()).isZero();
                assertThat(q.rateLimit()).isEqualTo(Optional.empty());
            }
        }
    }
}
