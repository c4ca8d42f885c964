package io.github.deferlock.benchmarks;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.RedisClient;

/**
 * The {@code conflict.defer.*} metrics: a stream of messages, 10% of them on one hot key, each handled by a
 * {@link ConflictAwareHandler} whose handler sleeps 20 ms, on 8 consumer threads (the caller's own consumer
 * loop: each thread takes the next message and calls {@code handle}). The same stream without a hot key (the
 * 10% get unique keys too) is the baseline. Measured: the throughput of the cold (non-hot) messages under
 * each strategy ÷ the baseline's, and the end-to-end latency of hot messages (arrival to handler done).
 */
final class ConflictBenchmarks {

    static final int CONSUMERS = 8;
    static final double HOT_SHARE = 0.10;
    static final Duration HANDLER = Duration.ofMillis(20);
    static final Duration DRAIN = Duration.ofSeconds(60);

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    ConflictBenchmarks(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    /** What one workload run produced. */
    private record Run(long cold, double seconds, Samples hotLatency, long hotArrived, long hotFailed) {
        double coldPerSecond() {
            return cold / seconds;
        }

        Run plus(Run o) {
            Samples all = new Samples();
            all.addAll(hotLatency);
            all.addAll(o.hotLatency);
            return new Run(cold + o.cold, seconds + o.seconds, all, hotArrived + o.hotArrived, hotFailed + o.hotFailed);
        }
    }

    void run() throws InterruptedException {
        String ratio = "conflict.defer.coldThroughputRatio";
        String p99 = "conflict.defer.hotCompletion.p99";
        List<OnConflict> runs =
                java.util.Arrays.asList(null, OnConflict.DEFER, OnConflict.SLEEP_RETRY, OnConflict.THROW);
        java.util.Map<String, Run> pooled = new java.util.LinkedHashMap<>();
        Duration slice = settings.conflictWindow().dividedBy(settings.rounds());
        for (int round = 1; round <= settings.rounds(); round++) {
            for (OnConflict s : runs) {
                Run r = workload(s, slice, round);
                Progress.line(
                        "%-36s %-10s %14s cold msgs/s, hot p99 %s ms, hot failed %d of %d",
                        "conflict " + (s == null ? "no hot key" : s.name()),
                        "r" + round,
                        number(r),
                        Report.number(r.hotLatency().percentileMillis(99)),
                        r.hotFailed(),
                        r.hotArrived());
                pooled.merge(String.valueOf(s), r, Run::plus);
            }
        }
        Run base = pooled.get("null");
        Progress.line("%-36s %-10s %14s cold msgs/s", "conflict baseline (no hot key)", "", number(base));
        for (OnConflict s : List.of(OnConflict.DEFER, OnConflict.SLEEP_RETRY, OnConflict.THROW)) {
            Run r = pooled.get(s.name());
            double rr = r.coldPerSecond() / base.coldPerSecond();
            double hot = r.hotLatency().percentileMillis(99);
            Progress.line(
                    "%-36s %-10s %14s cold msgs/s, ratio %.2f, hot p99 %s ms, hot failed %d of %d",
                    "conflict " + s, "", number(r), rr, Report.number(hot), r.hotFailed(), r.hotArrived());
            if (s == OnConflict.DEFER) {
                results.put(ratio, "deferlock", rr);
                results.put(p99, "deferlock", hot);
                results.extra(p99, "deferlock with DEFER: hot messages arrived", r.hotArrived());
                results.extra(p99, "deferlock with DEFER: hot messages completed", r.hotArrived() - r.hotFailed());
            } else {
                results.extra(ratio, "deferlock with " + s.name(), rr);
                if (s == OnConflict.SLEEP_RETRY) {
                    results.extra(p99, "deferlock with SLEEP_RETRY: p99 ms", hot);
                }
                results.extra(p99, "deferlock with " + s.name() + ": hot messages failed", r.hotFailed());
            }
        }
        results.extra(ratio, "baseline (no hot key): cold msgs/s", base.coldPerSecond());
        results.extra(
                ratio, "deferlock with DEFER: cold msgs/s", pooled.get("DEFER").coldPerSecond());
        results.note(
                ratio,
                "method",
                CONSUMERS + " consumer threads each take the next message and call `ConflictAwareHandler.handle`"
                        + " (message id set, so done markers are written); handler sleeps "
                        + HANDLER.toMillis() + " ms; " + (int) (HOT_SHARE * 100) + "% of messages on key `hot`, the"
                        + " rest on unique keys; " + settings.rounds() + " round(s) of " + slice.toMillis()
                        + " ms per strategy after "
                        + settings.warmup().toMillis() + " ms warm-up, the baseline and strategies taking turns;"
                        + " DEFER adds a 1-thread deferral worker (`Deferrals.startWorker(1)`, default backoff"
                        + " 50 ms → 30 s ×2, 20 deferrals); SLEEP_RETRY uses `SleepRetry.DEFAULT`; THROW drops the"
                        + " conflicting message (the caller would have to redeliver it)");
        results.note(
                p99,
                "method",
                "from the message's arrival at a consumer thread to its handler's end, hot messages that arrived"
                        + " in the window; the run waits up to " + DRAIN.toSeconds() + " s for deferred ones");
    }

    private static String number(Run r) {
        return Report.number(r.coldPerSecond());
    }

    private Run workload(OnConflict strategy, Duration window, int round) throws InterruptedException {
        String tag = (strategy == null ? "base" : strategy.name().toLowerCase(java.util.Locale.ROOT)) + round;
        try (RedisClient client = redis.jedis();
                RedisLocks locks = RedisLocks.builder(client).keyPrefix("lock:").build();
                Deferrals deferrals =
                        Deferrals.builder(client, "bench-deferrals-" + tag).build()) {
            AtomicLong cold = new AtomicLong();
            Samples hotLatency = new Samples();
            AtomicLong hotArrived = new AtomicLong();
            AtomicLong hotFailed = new AtomicLong();
            long windowStart = System.nanoTime() + settings.warmup().toNanos();
            long windowEnd = windowStart + window.toNanos();
            ConflictAwareHandler<HotKeyMessage> handler = ConflictAwareHandler.builder(
                            "bench-" + tag, HotKeyMessage.class, locks)
                    .key(HotKeyMessage::key)
                    .messageId(HotKeyMessage::id)
                    .onConflict(strategy == null ? OnConflict.THROW : strategy)
                    .deferrals(deferrals)
                    .handler(m -> {
                        Thread.sleep(HANDLER.toMillis());
                        long now = QueueBenchmarks.nowMicros();
                        if (m.hot()) {
                            if (!m.tracked()) {
                                return;
                            }
                            synchronized (hotLatency) {
                                hotLatency.add((now - m.createdMicros()) * 1000);
                            }
                        } else {
                            long t = System.nanoTime();
                            if (t >= windowStart && t < windowEnd) {
                                cold.incrementAndGet();
                            }
                        }
                    })
                    .build();
            if (strategy == OnConflict.DEFER) {
                deferrals.startWorker(1);
            }
            List<Thread> consumers = new ArrayList<>();
            List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            AtomicLong seq = new AtomicLong();
            for (int i = 0; i < CONSUMERS; i++) {
                Thread t = new Thread(
                        () -> {
                            while (System.nanoTime() < windowEnd) {
                                long n = seq.incrementAndGet();
                                boolean hot = ThreadLocalRandom.current().nextDouble() < HOT_SHARE;
                                long now = System.nanoTime();
                                boolean counted = hot && now >= windowStart && now < windowEnd;
                                String key = hot && strategy != null ? "hot" : "cold:" + n;
                                HotKeyMessage m = new HotKeyMessage(
                                        tag + "-" + n, key, hot, counted, QueueBenchmarks.nowMicros());
                                if (counted) {
                                    hotArrived.incrementAndGet();
                                }
                                try {
                                    handler.handle(m);
                                } catch (LockConflictException e) {
                                    if (counted) {
                                        hotFailed.incrementAndGet();
                                    }
                                } catch (RuntimeException e) {
                                    errors.add(e);
                                    return;
                                }
                            }
                        },
                        "consumer-" + i);
                consumers.add(t);
                t.start();
            }
            for (Thread t : consumers) {
                t.join();
            }
            if (!errors.isEmpty()) {
                throw new IllegalStateException("a consumer failed", errors.get(0));
            }
            long deadline = System.nanoTime() + DRAIN.toNanos();
            while (strategy == OnConflict.DEFER
                    && System.nanoTime() < deadline
                    && completed(hotLatency) + hotFailed.get() < hotArrived.get()) {
                Thread.sleep(20);
            }
            long missing = hotArrived.get() - hotFailed.get() - completed(hotLatency);
            Samples copy = new Samples();
            synchronized (hotLatency) {
                copy.addAll(hotLatency);
            }
            return new Run(
                    cold.get(), window.toNanos() / 1e9, copy, hotArrived.get(), hotFailed.get() + Math.max(0, missing));
        }
    }

    private static int completed(Samples s) {
        synchronized (s) {
            return s.size();
        }
    }
}
