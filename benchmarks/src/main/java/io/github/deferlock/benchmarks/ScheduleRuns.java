package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

/**
 * {@code queue.schedule.*} (issue 31): {@value #SCHEDULES} recurring schedules of one queue, each {@code
 * ScheduleSpec.fixedRate(1 s)} (anchored on the epoch, so every schedule's slot falls on each whole second: a burst of
 * {@value #SCHEDULES} fires a second), fired and handled by one {@link DelayQueueWorker} (concurrency {@value
 * #CONCURRENCY}, empty handler) in this process. The lateness of a fire is the handler's start − the slot's time,
 * the slot read from the fired job's id ({@code <schedule id>@<slot, ISO-8601>}); the slot comes from the server's
 * clock, the start from the client's, one machine. Only fires whose slot lies in the measured window (after a
 * warm-up, whole seconds) count; a fire not handled by the window's end plus {@link #GRACE} is missing, and the
 * fires per second say how many came, so a ticker that lags cannot hide behind the latency of the fires it made.
 * deferlock only: see the method note for BullMQ's job schedulers.
 */
final class ScheduleRuns {

    /** Schedules of the run: {@code Schedules.MAX_SCHEDULES}, the most one queue holds. */
    static final int SCHEDULES = 10_000;
    /** Handler threads of the worker. */
    static final int CONCURRENCY = 8;
    /** How long after the window's end a fire of a slot in the window may still come. */
    static final Duration GRACE = Duration.ofSeconds(5);

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    ScheduleRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    void fireLateness() {
        String p99 = "queue.schedule.fireLateness.p99";
        String p50 = "queue.schedule.fireLateness.p50";
        String rate = "queue.schedule.firesPerSec";
        Duration warmup = settings.scheduleWarmup();
        Duration window = settings.scheduleWindow();
        Rounds.run("queue.schedule.*", settings.rounds(), List.of(Sides.DEFERLOCK), (side, round) -> {
            redis.flushAll();
            QueueRuns.Lateness l;
            try {
                l = run(warmup, window);
            } finally {
                redis.flushAll();
            }
            boolean sat = l.saturated();
            results.add(p99, side, l.percentileMillis(99), sat);
            results.add(p50, side, l.percentileMillis(50), sat);
            results.add(rate, side, l.handledRate());
            Progress.line(
                    "%-36s %-22s p50 %s p99 %s max %s ms, %d of %d fires, %s fires/s%s",
                    "queue.schedule.*",
                    side + " r" + round,
                    Report.number(l.percentileMillis(50)),
                    Report.number(l.percentileMillis(99)),
                    Report.number(l.percentileMillis(100)),
                    l.micros().length,
                    l.jobs(),
                    Report.number(l.handledRate()),
                    sat ? " SATURATED" : "");
        });
        results.note(
                p99,
                "method",
                SCHEDULES + " schedules `queue.schedules().upsert(id, ScheduleSpec.fixedRate(Duration.ofSeconds(1)),"
                        + " payload)` (100-byte payload; anchored on the epoch, so all of them fall due on every whole"
                        + " second) upserted before one `DelayQueueWorker` (concurrency " + CONCURRENCY + ", empty"
                        + " handler; its process's one schedule ticker fires them) starts; after " + warmup.toMillis()
                        + " ms of warm-up, the fires whose slot lies in the next " + window.toMillis() + " ms"
                        + " (whole seconds) are measured: lateness = handler start (client clock) − the slot's time"
                        + " (the fired job's id `<id>@<slot>`, server clock; one machine); a fire not handled "
                        + GRACE.toSeconds() + " s after the window is missing; a round with a fire missing or under"
                        + " 90 % of the expected rate is *saturated* and gets no verdict (queue.schedule.firesPerSec"
                        + " shows it); " + settings.rounds() + " round(s), the server flushed before and after each."
                        + " The target: every second's fires handled before the next second's fall due. BullMQ's"
                        + " job schedulers (`upsertJobScheduler(id, {every: 1000})`) are not measured: BullMQ adds a"
                        + " scheduler's next job when a worker takes the current one, so its slots drift with its"
                        + " own lateness and a like-for-like figure needs its own op in bullmq-bench.mjs and a"
                        + " check of what its slot time is; left for a follow-up");
        results.note(p50, "method", "the runs of queue.schedule.fireLateness.p99");
        results.note(
                rate,
                "method",
                "the runs of queue.schedule.fireLateness.p99: fires of a slot in the window handled by its end + "
                        + GRACE.toSeconds() + " s, ÷ the window's seconds; expected " + SCHEDULES + "/s");
    }

    private QueueRuns.Lateness run(Duration warmup, Duration window) throws Exception {
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "q-sched", String.class).build();
            String payload = QueueSide.payload(0, 0);
            long t = System.nanoTime();
            for (int i = 0; i < SCHEDULES; i++) {
                q.schedules().upsert("s" + i, ScheduleSpec.fixedRate(Duration.ofSeconds(1)), payload);
            }
            Progress.line(
                    "%-36s upserted %d schedules in %.1f s",
                    "queue.schedule.*", SCHEDULES, (System.nanoTime() - t) / 1e9);
            long nowMs = System.currentTimeMillis();
            long startMs = (nowMs + warmup.toMillis() + 999) / 1000 * 1000;
            long endMs = startMs + Math.max(1000, window.toMillis() / 1000 * 1000);
            int expected = (int) ((endMs - startMs) / 1000 * SCHEDULES);
            long[] late = new long[expected * 2];
            AtomicInteger got = new AtomicInteger();
            AtomicLong early = new AtomicLong();
            DelayQueueWorker<String> worker = DelayQueueWorker.builder(q, (Job<String> job) -> {
                        long now = QueueSide.nowMicros();
                        long slot = slotMillis(job);
                        if (slot < startMs || slot >= endMs) {
                            return;
                        }
                        long l = now - slot * 1000;
                        if (l < 0) {
                            early.incrementAndGet();
                        }
                        int i = got.getAndIncrement();
                        if (i < late.length) {
                            late[i] = l;
                        }
                    })
                    .concurrency(CONCURRENCY)
                    .build()
                    .start();
            try {
                long deadline = endMs + GRACE.toMillis();
                while (System.currentTimeMillis() < deadline
                        && (System.currentTimeMillis() < endMs + 200 || got.get() < expected)) {
                    Thread.sleep(50);
                }
            } finally {
                worker.close(Duration.ofSeconds(10));
            }
            int n = Math.min(got.get(), late.length);
            double seconds = (endMs - startMs) / 1000.0;
            return new QueueRuns.Lateness(Arrays.copyOf(late, n), expected, early.get(), n / seconds, SCHEDULES);
        }
    }

    /** The slot of a fired job: the instant after the last {@code @} of its id, else its due time. */
    static long slotMillis(Job<String> job) {
        String id = job.id();
        int at = id.lastIndexOf('@');
        try {
            return Instant.parse(id.substring(at + 1)).toEpochMilli();
        } catch (RuntimeException e) {
            return job.dueAt().toEpochMilli();
        }
    }
}
