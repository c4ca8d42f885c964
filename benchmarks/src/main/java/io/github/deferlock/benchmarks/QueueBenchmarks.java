package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.NewJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ZRangeParams;

/**
 * The {@code queue.*} metrics: deferlock's {@link DelayQueue}, Redisson's {@code RDelayedQueue} + {@code
 * RBlockingQueue}, and the seed design (one zset scored by due time; workers loop ZRANGEBYSCORE + ZREM and
 * sleep 500 ms when nothing is due). Payloads are 100-character strings on every side.
 */
// RDelayedQueue is deprecated in Redisson 4, but it is what free users have and what issue 6 compares with.
@SuppressWarnings("deprecation")
final class QueueBenchmarks {

    static final int PAYLOAD_CHARS = 100;
    static final Duration FAR = Duration.ofHours(1);
    static final Duration SEED_SLEEP = Duration.ofMillis(500);
    private static final int CHUNK = 1000;

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    QueueBenchmarks(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    /** A 100-character payload that starts with {@code seq:dueEpochMicros:}. */
    static String payload(long seq, long dueMicros) {
        StringBuilder sb = new StringBuilder(PAYLOAD_CHARS);
        sb.append(seq).append(':').append(dueMicros).append(':');
        while (sb.length() < PAYLOAD_CHARS) {
            sb.append('x');
        }
        return sb.toString();
    }

    static long dueMicrosOf(String payload) {
        int a = payload.indexOf(':');
        return Long.parseLong(payload.substring(a + 1, payload.indexOf(':', a + 1)));
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    static RDelayedQueue<String> delayedQueue(RedissonClient r, RBlockingQueue<String> destination) {
        return r.getDelayedQueue(destination);
    }

    /** Runs {@code op} repeatedly for the warm-up, then counts its calls for the measured time. */
    private static double rate(Duration warmup, Duration measure, int perCall, Op op) throws Exception {
        long end = System.nanoTime() + warmup.toNanos();
        long seq = 0;
        while (System.nanoTime() < end) {
            op.run(seq++);
        }
        long start = System.nanoTime();
        end = start + measure.toNanos();
        long calls = 0;
        long now;
        do {
            op.run(seq++);
            calls++;
            now = System.nanoTime();
        } while (now < end);
        return calls * (double) perCall / ((now - start) / 1e9);
    }

    @FunctionalInterface
    private interface Op {
        void run(long seq) throws Exception;
    }

    void enqueue() throws Exception {
        String t1 = "queue.enqueue.t1";
        String batch = "queue.enqueue.batch";
        Duration w = settings.warmup();
        Duration m = settings.enqueueTime().dividedBy(settings.rounds());
        java.util.Map<String, List<Double>> single = new java.util.LinkedHashMap<>();
        java.util.Map<String, List<Double>> batched = new java.util.LinkedHashMap<>();
        RedissonClient r = redis.redisson();
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "bench-enqueue", String.class).build();
            RBlockingQueue<String> dest = r.getBlockingQueue("redisson-enqueue");
            RDelayedQueue<String> delayed = delayedQueue(r, dest);
            for (int round = 1; round <= settings.rounds(); round++) {
                redis.flushAll();
                add(single, "deferlock", rate(w, m, 1, seq -> q.enqueue(payload(seq, 0), FAR)));
                redis.flushAll();
                add(
                        single,
                        "seed",
                        rate(
                                w,
                                m,
                                1,
                                seq -> client.zadd(
                                        "seed-enqueue", System.currentTimeMillis() + FAR.toMillis(), payload(seq, 0))));
                redis.flushAll();
                add(
                        single,
                        "redisson",
                        rate(w, m, 1, seq -> delayed.offer(payload(seq, 0), FAR.toMillis(), TimeUnit.MILLISECONDS)));
                redis.flushAll();
                add(batched, "deferlock", rate(w, m, CHUNK, seq -> {
                    List<String> jobs = new ArrayList<>(CHUNK);
                    for (int i = 0; i < CHUNK; i++) {
                        jobs.add(payload(seq * CHUNK + i, 0));
                    }
                    q.enqueueAll(jobs, FAR);
                }));
                redis.flushAll();
                add(batched, "raw", rate(w, m, CHUNK, seq -> {
                    try (AbstractPipeline p = client.pipelined()) {
                        long due = System.currentTimeMillis() + FAR.toMillis();
                        for (int i = 0; i < CHUNK; i++) {
                            p.zadd("raw-enqueue", due, payload(seq * CHUNK + i, 0));
                        }
                        p.sync();
                    }
                }));
            }
            redis.flushAll();
            try (Jedis stats = redis.connection()) {
                java.util.Map<String, Long> before = Redis.commandStats(stats);
                for (int i = 0; i < 200; i++) {
                    q.enqueue(payload(i, 0), FAR);
                }
                results.note(
                        t1,
                        "deferlock commands/job (INFO commandstats, incl. inside scripts)",
                        Redis.delta(before, Redis.commandStats(stats), 200));
            }
            delayed.destroy();
        } finally {
            r.shutdown(0, 2, TimeUnit.SECONDS);
        }
        single.forEach((side, v) -> record(t1, side, LockBenchmarks.median(v), "jobs/s (median of rounds)"));
        batched.forEach((side, v) -> record(batch, side, LockBenchmarks.median(v), "jobs/s (median of rounds)"));
        String method = settings.rounds() + " round(s) of " + m.toMillis() + " ms per side after " + w.toMillis()
                + " ms warm-up, sides taking turns; the figure is the median round";
        results.note(t1, "method", method);
        results.note(batch, "method", method);
        results.note(t1, "deferlock", "`DelayQueue.enqueue(payload, 1 h)`: one EVALSHA, delay from server TIME");
        results.note(t1, "redisson", "`RDelayedQueue.offer(payload, 1, HOURS)`");
        results.note(t1, "seed", "`ZADD queue dueMillis payload`");
        double floor = LockBenchmarks.median(single.get("seed"));
        double peer = LockBenchmarks.median(single.get("redisson"));
        if (peer > 0) {
            results.note(
                    t1,
                    "one-round-trip ceiling",
                    String.format(
                            Locale.ROOT,
                            "a bare `ZADD` round trip (seed) reached %.2f × redisson in this run; a synchronous"
                                    + " enqueue answered in one round trip cannot go faster than that",
                            floor / peer));
        }
        results.note(batch, "deferlock", "`DelayQueue.enqueueAll(1,000 payloads, 1 h)`");
        results.note(batch, "raw", "1,000 `ZADD`s in one Jedis pipeline (no job record, no id)");
    }

    private static void add(java.util.Map<String, List<Double>> m, String side, double v) {
        m.computeIfAbsent(side, k -> new ArrayList<>()).add(v);
        Progress.line("%-36s %-10s %14s jobs/s", "queue.enqueue", side, Report.number(v));
    }

    void throughput() throws Exception {
        String id = "queue.throughput.t8";
        int n = settings.drainJobs();
        int workers = 8;
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "bench-drain", String.class).build();
            fill(q, n, Duration.ZERO);
            CountDownLatch done = new CountDownLatch(n);
            Jedis stats = redis.connection();
            java.util.Map<String, Long> before = Redis.commandStats(stats);
            long start = System.nanoTime();
            DelayQueueWorker<String> worker = DelayQueueWorker.builder(q, job -> done.countDown())
                    .concurrency(workers)
                    .build()
                    .start();
            await(done, "deferlock drain");
            double ours = n / ((System.nanoTime() - start) / 1e9);
            worker.close(Duration.ofSeconds(5));
            results.note(id, "deferlock commands/job", Redis.delta(before, Redis.commandStats(stats), n));
            stats.close();
            record(id, "deferlock", ours, "jobs/s");
            redis.flushAll();

            long now = System.currentTimeMillis();
            zfill(client, "seed-drain", n, i -> now);
            CountDownLatch seedDone = new CountDownLatch(n);
            start = System.nanoTime();
            List<Thread> seeds = seedWorkers(client, "seed-drain", workers, p -> seedDone.countDown());
            await(seedDone, "seed drain");
            double seed = n / ((System.nanoTime() - start) / 1e9);
            stop(seeds);
            record(id, "seed", seed, "jobs/s");
            redis.flushAll();
        }
        RedissonClient r = redis.redisson();
        try {
            RBlockingQueue<String> dest = r.getBlockingQueue("redisson-drain");
            RDelayedQueue<String> delayed = delayedQueue(r, dest);
            offerAll(delayed, n, i -> Duration.ZERO);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (dest.size() < n && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            CountDownLatch theirDone = new CountDownLatch(n);
            long start = System.nanoTime();
            List<Thread> takers = redissonTakers(dest, workers, p -> theirDone.countDown());
            await(theirDone, "redisson drain");
            double theirs = n / ((System.nanoTime() - start) / 1e9);
            stop(takers);
            record(id, "redisson", theirs, "jobs/s");
            delayed.destroy();
        } finally {
            r.shutdown(0, 2, TimeUnit.SECONDS);
        }
        results.note(
                id,
                "method",
                n + " jobs due now are stored first; the figure is n ÷ the time from the "
                        + "workers' start to the last job handled");
        results.note(
                id,
                "deferlock",
                "`DelayQueueWorker`, concurrency 8, default batch size; each job claimed "
                        + "with a visibility deadline and acked (reliable)");
        results.note(
                id,
                "redisson",
                "jobs already moved to the destination `RBlockingQueue`; 8 threads "
                        + "`poll(100 ms)` (BLPOP; no ack, a crash loses the job)");
        results.note(id, "seed", "8 threads: ZRANGEBYSCORE -inf now LIMIT 0 1, ZREM; sleep 500 ms when empty");
    }

    void lateness() throws Exception {
        int n = settings.latenessJobs();
        long minMs = settings.latenessMinDelay().toMillis();
        long spreadMs = settings.latenessSpread().toMillis();
        long[] delays = new long[n];
        for (int i = 0; i < n; i++) {
            delays[i] = minMs + ThreadLocalRandom.current().nextLong(spreadMs);
        }
        Duration timeout = Duration.ofMillis(minMs + spreadMs).plusSeconds(60);
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "bench-late", String.class).build();
            Lateness ours = new Lateness(n);
            DelayQueueWorker<String> worker = DelayQueueWorker.builder(q, job -> {
                        long now = nowMicros();
                        Instant due = job.dueAt();
                        ours.record(now - (due.getEpochSecond() * 1_000_000 + due.getNano() / 1000));
                    })
                    .concurrency(2)
                    .build()
                    .start();
            for (int from = 0; from < n; from += CHUNK / 2) {
                List<NewJob<String>> jobs = new ArrayList<>();
                for (int i = from; i < Math.min(n, from + CHUNK / 2); i++) {
                    jobs.add(NewJob.of(payload(i, 0), Duration.ofMillis(delays[i])));
                }
                q.enqueueAll(jobs);
            }
            ours.await(timeout);
            worker.close(Duration.ofSeconds(5));
            report("deferlock", ours);
            redis.flushAll();

            Lateness seed = new Lateness(n);
            List<Thread> seeds = seedWorkers(client, "seed-late", 2, p -> seed.record(nowMicros() - dueMicrosOf(p)));
            long base = nowMicros();
            zfill(client, "seed-late", n, i -> base / 1000 + delays[i]);
            seed.await(timeout);
            stop(seeds);
            report("seed", seed);
            redis.flushAll();
        }
        RedissonClient r = redis.redisson();
        try {
            RBlockingQueue<String> dest = r.getBlockingQueue("redisson-late");
            RDelayedQueue<String> delayed = delayedQueue(r, dest);
            Lateness theirs = new Lateness(n);
            List<Thread> takers = redissonTakers(dest, 2, p -> theirs.record(nowMicros() - dueMicrosOf(p)));
            offerAll(delayed, n, i -> Duration.ofMillis(delays[i]));
            theirs.await(timeout);
            stop(takers);
            report("redisson", theirs);
            delayed.destroy();
        } finally {
            r.shutdown(0, 2, TimeUnit.SECONDS);
        }
        results.note(
                "queue.lateness.p99",
                "method",
                n + " jobs, delays uniform over [" + minMs + ", " + (minMs + spreadMs) + ") ms, enqueued in "
                        + "pipelined batches of 500 while 2 workers run (jobs fall due at about "
                        + Report.number(n * 1000.0 / spreadMs) + " jobs/s); lateness = handler start − due time "
                        + "(deferlock: the job's server-computed due time; peers: client time at enqueue + delay)");
    }

    private void report(String side, Lateness l) {
        Samples s = l.late;
        record("queue.lateness.p50", side, s.percentileMillis(50), "ms");
        record("queue.lateness.p99", side, s.percentileMillis(99), "ms");
        record("queue.lateness.max", side, s.maxMillis(), "ms");
        record("queue.early", side, l.early.get(), "jobs");
        results.extra("queue.lateness.p99", side + " handled jobs/s", l.deliveryRate());
        Progress.line(
                "%-36s %-10s %14s jobs/s handled, first to last",
                "queue.lateness", side, Report.number(l.deliveryRate()));
    }

    /** Lateness samples of one side; early handling counts separately and as 0 lateness. */
    private static final class Lateness {
        final Samples late = new Samples();
        final AtomicLong early = new AtomicLong();
        final CountDownLatch done;
        final AtomicLong first = new AtomicLong();
        final AtomicLong last = new AtomicLong();
        final int n;

        Lateness(int n) {
            this.n = n;
            done = new CountDownLatch(n);
        }

        void record(long lateMicros) {
            if (lateMicros < 0) {
                early.incrementAndGet();
            }
            long now = System.nanoTime();
            first.compareAndSet(0, now);
            last.set(now);
            synchronized (late) {
                late.add(Math.max(0, lateMicros) * 1000);
            }
            done.countDown();
        }

        /** Jobs handled per second from the first handled to the last. */
        double deliveryRate() {
            return n / Math.max(1e-9, (last.get() - first.get()) / 1e9);
        }

        void await(Duration timeout) throws InterruptedException {
            if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(done.getCount() + " jobs were not delivered within " + timeout);
            }
        }
    }

    void idle() throws Exception {
        String id = "queue.idle.commandsPerSec";
        Duration window = settings.idleWindow();
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "bench-idle", String.class).build();
            DelayQueueWorker<String> worker = DelayQueueWorker.builder(q, job -> {})
                    .concurrency(1)
                    .build()
                    .start();
            record(id, "deferlock", commandsPerSecond(id, "deferlock", window), "commands/s");
            worker.close(Duration.ofSeconds(5));

            List<Thread> seed = seedWorkers(client, "seed-idle", 1, p -> {});
            record(id, "seed", commandsPerSecond(id, "seed", window), "commands/s");
            stop(seed);
        }
        RedissonClient r = redis.redisson();
        try {
            RBlockingQueue<String> dest = r.getBlockingQueue("redisson-idle");
            RDelayedQueue<String> delayed = delayedQueue(r, dest);
            List<Thread> takers = redissonTakers(dest, 1, p -> {});
            record(id, "redisson", commandsPerSecond(id, "redisson", window), "commands/s");
            stop(takers);
            delayed.destroy();
        } finally {
            r.shutdown(0, 2, TimeUnit.SECONDS);
        }
        results.note(
                id,
                "method",
                "commands counted by INFO commandstats (INFO itself excluded) over " + window
                        + " after 1 s of settling; one idle worker per side");
        results.note(
                id,
                "redisson",
                "one thread in `RBlockingQueue.poll(100 ms)` plus the `RDelayedQueue` "
                        + "transfer task (a blocking BLPOP counts once per call)");
    }

    /**
     * Commands the clients send per second, counted with MONITOR (commands a script runs inside Redis are
     * excluded: they cost no round trip); the INFO commandstats delta, which counts those too, goes in a note.
     */
    private double commandsPerSecond(String id, String side, Duration window) throws InterruptedException {
        Thread.sleep(Math.min(1000, window.toMillis()));
        AtomicLong sent = new AtomicLong();
        AtomicBoolean counting = new AtomicBoolean();
        Jedis monitor = redis.connection();
        CountDownLatch monitoring = new CountDownLatch(1);
        Thread reader = new Thread(
                () -> {
                    try {
                        monitor.monitor(new redis.clients.jedis.JedisMonitor() {
                            @Override
                            public void proceed(redis.clients.jedis.Connection c) {
                                monitoring.countDown();
                                super.proceed(c);
                            }

                            @Override
                            public void onCommand(String line) {
                                if (counting.get() && !line.contains(" lua]") && !line.contains("\"info\"")) {
                                    sent.incrementAndGet();
                                }
                            }
                        });
                    } catch (RuntimeException closed) {
                        // the connection was closed to stop monitoring
                    }
                },
                "monitor");
        reader.setDaemon(true);
        reader.start();
        monitoring.await(5, TimeUnit.SECONDS);
        Thread.sleep(50);
        try (Jedis j = redis.connection()) {
            java.util.Map<String, Long> before = Redis.commandStats(j);
            counting.set(true);
            long t0 = System.nanoTime();
            Thread.sleep(window.toMillis());
            counting.set(false);
            double seconds = (System.nanoTime() - t0) / 1e9;
            java.util.Map<String, Long> after = Redis.commandStats(j);
            results.note(
                    id,
                    side + " executed/s (INFO commandstats, incl. inside scripts)",
                    Redis.delta(before, after, seconds));
            return sent.get() / seconds;
        } finally {
            monitor.close();
            reader.join(2000);
        }
    }

    void memory() throws Exception {
        String id = "queue.memory.bytesPerJob";
        int n = settings.memoryJobs();
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "bench-memory", String.class).build();
            q.enqueue(payload(-1, 0), FAR); // loads the script; the job is in the baseline
            long m0 = redis.usedMemory();
            fill(q, n, FAR);
            record(id, "deferlock", (redis.usedMemory() - m0) / (double) n, "bytes");
            redis.flushAll();

            long now = System.currentTimeMillis();
            client.zadd("seed-memory", now, "warm");
            m0 = redis.usedMemory();
            zfill(client, "seed-memory", n, i -> now + FAR.toMillis());
            record(id, "seed", (redis.usedMemory() - m0) / (double) n, "bytes");
            redis.flushAll();
        }
        RedissonClient r = redis.redisson();
        try {
            RBlockingQueue<String> dest = r.getBlockingQueue("redisson-memory");
            RDelayedQueue<String> delayed = delayedQueue(r, dest);
            delayed.offer(payload(-1, 0), FAR.toMillis(), TimeUnit.MILLISECONDS);
            long m0 = redis.usedMemory();
            offerAll(delayed, n, i -> FAR);
            record(id, "redisson", (redis.usedMemory() - m0) / (double) n, "bytes");
            delayed.destroy();
        } finally {
            r.shutdown(0, 2, TimeUnit.SECONDS);
        }
        results.note(
                id,
                "method",
                n + " pending jobs with a 100-character payload due in 1 h; INFO used_memory "
                        + "after − before, ÷ n (client connections and scripts are in the baseline)");
    }

    private void record(String id, String side, double value, String unit) {
        results.put(id, side, value);
        Progress.figure(id, side, value, unit);
    }

    private static void fill(DelayQueue<String> q, int n, Duration delay) {
        for (int from = 0; from < n; from += CHUNK) {
            List<String> jobs = new ArrayList<>(CHUNK);
            for (int i = from; i < Math.min(n, from + CHUNK); i++) {
                jobs.add(payload(i, 0));
            }
            q.enqueueAll(jobs, delay);
        }
    }

    /** Seed enqueue: pipelined ZADD of payloads scored by their due epoch millisecond. */
    private static void zfill(RedisClient client, String key, int n, java.util.function.IntToLongFunction dueMillis) {
        for (int from = 0; from < n; from += CHUNK) {
            try (AbstractPipeline p = client.pipelined()) {
                for (int i = from; i < Math.min(n, from + CHUNK); i++) {
                    long due = dueMillis.applyAsLong(i);
                    p.zadd(key, due, payload(i, due * 1000));
                }
                p.sync();
            }
        }
    }

    /** Redisson enqueue with at most 500 offers in flight (async), so a large fill does not take minutes. */
    private static void offerAll(RDelayedQueue<String> q, int n, java.util.function.IntFunction<Duration> delay) {
        List<RFuture<Void>> pending = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Duration d = delay.apply(i);
            long due = (System.currentTimeMillis() + d.toMillis()) * 1000; // Redisson's own due, in ms
            pending.add(q.offerAsync(payload(i, due), d.toMillis(), TimeUnit.MILLISECONDS));
            if (pending.size() == 500) {
                pending.forEach(f -> f.toCompletableFuture().join());
                pending.clear();
            }
        }
        pending.forEach(f -> f.toCompletableFuture().join());
    }

    /** The seed worker loop: take the head if due, ZREM it (the winner handles it), sleep 500 ms when empty. */
    private static List<Thread> seedWorkers(
            RedisClient client, String key, int n, java.util.function.Consumer<String> handler) {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(
                    () -> {
                        while (!stop.get() && !Thread.currentThread().isInterrupted()) {
                            List<String> due = client.zrange(
                                    key,
                                    ZRangeParams.zrangeByScoreParams(0, System.currentTimeMillis())
                                            .limit(0, 1));
                            if (due.isEmpty()) {
                                try {
                                    Thread.sleep(SEED_SLEEP.toMillis());
                                } catch (InterruptedException e) {
                                    return;
                                }
                                continue;
                            }
                            if (client.zrem(key, due.get(0)) == 1) {
                                handler.accept(due.get(0));
                            }
                        }
                    },
                    "seed-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return threads;
    }

    private static List<Thread> redissonTakers(
            RBlockingQueue<String> dest, int n, java.util.function.Consumer<String> handler) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(
                    () -> {
                        while (!Thread.currentThread().isInterrupted()) {
                            try {
                                String p = dest.poll(100, TimeUnit.MILLISECONDS);
                                if (p != null) {
                                    handler.accept(p);
                                }
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                if (Thread.currentThread().isInterrupted()) {
                                    return;
                                }
                            }
                        }
                    },
                    "redisson-taker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return threads;
    }

    private static void stop(List<Thread> threads) throws InterruptedException {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(5_000);
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException(what + ": " + latch.getCount() + " jobs left after 120 s");
        }
    }
}
