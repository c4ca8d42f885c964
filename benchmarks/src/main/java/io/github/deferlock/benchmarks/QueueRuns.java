package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.delay.QueueRateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.args.FlushMode;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** The {@code queue.*} metrics against deferlock, bare ZADD, Redisson (defaults and tuned), BullMQ and the seed. */
final class QueueRuns {

    static final long FAR = Duration.ofHours(1).toMillis();
    static final int CHUNK = 1000;
    static final int DRAIN_CONCURRENCY = 8;
    static final int LATENESS_CONSUMERS = 2;

    private final Redis redis;
    private final Settings settings;
    private final Results results;
    private final String bullmqMissing;

    QueueRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
        this.bullmqMissing = BullMq.unavailable();
    }

    private List<String> sides(List<String> all, String... ids) {
        List<String> out = new ArrayList<>(all);
        if (bullmqMissing != null && out.remove(Sides.BULLMQ)) {
            for (String id : ids) {
                results.unavailable(id, Sides.BULLMQ, bullmqMissing);
            }
        }
        return out;
    }

    /** {@code queue.enqueue.t1} (+ commands and server CPU per job) and {@code queue.enqueue.bulk}. */
    void enqueue() {
        String t1 = "queue.enqueue.t1";
        String bulk = "queue.enqueue.bulk";
        Rounds.run(
                t1,
                settings.rounds(),
                sides(Sides.QUEUES, t1, t1 + ".commands", t1 + ".redisCpu", bulk),
                (side, round) -> {
                    redis.flushAll();
                    try (Jedis stats = redis.connection()) {
                        double[] single;
                        double[] batch;
                        if (side.equals(Sides.BULLMQ)) {
                            try (BullMq b = BullMq.start(redis, "bq-enqueue")) {
                                b.call(
                                        BullMq.op("addFor")
                                                .put("ms", settings.warmup().toMillis())
                                                .put("delay", FAR),
                                        timeout());
                                Redis.Snapshot before = Redis.snapshot(stats);
                                JsonNode r = b.call(
                                        BullMq.op("addFor")
                                                .put("ms", settings.measure().toMillis())
                                                .put("delay", FAR),
                                        timeout());
                                Redis.Snapshot after = Redis.snapshot(stats);
                                long n = r.get("count").asLong();
                                single = new double[] {
                                    n / r.get("seconds").asDouble(),
                                    after.commandsPer(before, n),
                                    after.cpuMicrosPer(before, n)
                                };
                                JsonNode bl = b.call(
                                        BullMq.op("bulkFor")
                                                .put("ms", settings.measure().toMillis())
                                                .put("warmMs", settings.warmup().toMillis())
                                                .put("chunk", CHUNK)
                                                .put("delay", FAR),
                                        timeout());
                                batch = new double[] {
                                    bl.get("count").asLong() / bl.get("seconds").asDouble()
                                };
                            }
                        } else {
                            try (QueueSide q = QueueSide.open(side, redis, "q-enqueue-" + side)) {
                                AtomicLong seq = new AtomicLong();
                                timed(settings.warmup(), () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), FAR));
                                Redis.Snapshot before = Redis.snapshot(stats);
                                double[] rate = timed(
                                        settings.measure(),
                                        () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), FAR));
                                Redis.Snapshot after = Redis.snapshot(stats);
                                long n = (long) rate[1];
                                single = new double[] {
                                    rate[0], after.commandsPer(before, n), after.cpuMicrosPer(before, n)
                                };
                                List<Long> delays = java.util.Collections.nCopies(CHUNK, FAR);
                                timed(settings.warmup(), () -> q.addBulk(chunk(seq), delays));
                                double[] b = timed(settings.measure(), () -> q.addBulk(chunk(seq), delays));
                                batch = new double[] {b[0] * CHUNK};
                            }
                        }
                        results.add(t1, side, single[0]);
                        results.add(t1 + ".commands", side, single[1]);
                        results.add(t1 + ".redisCpu", side, single[2]);
                        results.add(bulk, side, batch[0]);
                        Progress.line(
                                "%-36s %-22s %10s jobs/s, bulk %s jobs/s, %.2f commands/job",
                                "queue.enqueue",
                                side + " r" + round,
                                Report.number(single[0]),
                                Report.number(batch[0]),
                                single[1]);
                    }
                });
        String method = settings.rounds() + " round(s), side order shuffled each round; "
                + settings.warmup().toMillis() + " ms warm-up then "
                + settings.measure().toMillis() + " ms measured per side and round; one thread";
        results.note(t1, "method", method + "; each add waits for its answer");
        results.note(bulk, "method", method + "; " + CHUNK + " jobs per call");
        results.note(
                t1,
                Sides.DEFERLOCK,
                "`DelayQueue.enqueue(payload, 1 h)`: one EVALSHA, due time from the server's TIME");
        results.note(t1, Sides.RAW, "`ZADD queue dueMillis payload`: the one-round-trip floor");
        results.note(t1, Sides.REDISSON, "`RDelayedQueue.offer(payload, 1, HOURS)`");
        results.note(t1, Sides.BULLMQ, "`queue.add(name, payload, {delay: 1 h})`, removeOnComplete/removeOnFail");
        results.note(t1, Sides.SEED, "`ZADD` (the seed design's enqueue)");
        results.note(bulk, Sides.DEFERLOCK, "`DelayQueue.enqueueAll(1,000 jobs)`");
        results.note(bulk, Sides.RAW, "1,000 `ZADD`s in one Jedis pipeline (no job record, no id)");
        results.note(bulk, Sides.REDISSON, "1,000 `offerAsync` in flight, then wait for all (no bulk add)");
        results.note(bulk, Sides.BULLMQ, "`queue.addBulk(1,000 jobs)`");
    }

    private static List<String> chunk(AtomicLong seq) {
        List<String> jobs = new ArrayList<>(CHUNK);
        for (int i = 0; i < CHUNK; i++) {
            jobs.add(QueueSide.payload(seq.incrementAndGet(), 0));
        }
        return jobs;
    }

    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    /** Runs {@code op} for {@code d}; returns {calls per second, calls}. */
    static double[] timed(Duration d, Op op) throws Exception {
        long start = System.nanoTime();
        long end = start + d.toNanos();
        long calls = 0;
        long now;
        do {
            op.run();
            calls++;
            now = System.nanoTime();
        } while (now < end);
        return new double[] {calls / ((now - start) / 1e9), calls};
    }

    private Duration timeout() {
        return settings.measure().plus(settings.warmup()).multipliedBy(3).plusSeconds(60);
    }

    /** {@code queue.drain.t8}: n due jobs stored first, then 8 consumers; a warm-up drain before. */
    void drain() {
        String id = "queue.drain.t8";
        int n = settings.drainJobs();
        int warm = Math.max(100, n / 5);
        Rounds.run(
                id,
                settings.rounds(),
                sides(Sides.CONSUMING, id, id + ".commands", id + ".redisCpu"),
                (side, round) -> {
                    redis.flushAll();
                    double[] got;
                    try (Jedis stats = redis.connection()) {
                        if (side.equals(Sides.BULLMQ)) {
                            try (BullMq b = BullMq.start(redis, "bq-drain")) {
                                b.call(BullMq.op("fill").put("n", warm).put("delay", 0), timeout());
                                b.call(
                                        BullMq.op("drain").put("n", warm).put("concurrency", DRAIN_CONCURRENCY),
                                        Duration.ofSeconds(120));
                                b.call(BullMq.op("fill").put("n", n).put("delay", 0), timeout());
                                Redis.Snapshot before = Redis.snapshot(stats);
                                JsonNode r = b.call(
                                        BullMq.op("drain").put("n", n).put("concurrency", DRAIN_CONCURRENCY),
                                        Duration.ofSeconds(180));
                                Redis.Snapshot after = Redis.snapshot(stats);
                                got = new double[] {
                                    n / r.get("seconds").asDouble(),
                                    after.commandsPer(before, n),
                                    after.cpuMicrosPer(before, n)
                                };
                            }
                        } else {
                            try (QueueSide q = QueueSide.open(side, redis, "q-drain-" + side)) {
                                drainOnce(q, warm, null);
                                got = drainOnce(q, n, stats);
                            }
                        }
                    }
                    results.add(id, side, got[0]);
                    results.add(id + ".commands", side, got[1]);
                    results.add(id + ".redisCpu", side, got[2]);
                    Progress.line(
                            "%-36s %-22s %10s jobs/s, %.2f commands/job",
                            id, side + " r" + round, Report.number(got[0]), got[1]);
                });
        results.note(
                id,
                "method",
                n + " due jobs are stored first (a warm-up drain of " + warm + " before); the figure is n ÷ the time"
                        + " from the consumers' start to the last job handled; " + DRAIN_CONCURRENCY
                        + " consumers, empty handler; " + settings.rounds() + " round(s), side order shuffled");
        results.note(
                id,
                Sides.DEFERLOCK,
                "`DelayQueueWorker`, concurrency 8, defaults: claimed with a visibility deadline, acked");
        results.note(
                id,
                Sides.REDISSON,
                "8 threads `take()` on the destination `RBlockingQueue` (no ack: a crash loses the job)");
        results.note(id, Sides.REDISSON_TUNED, "8 threads `poll(32)`, `take()` when empty; tuned client");
        results.note(id, Sides.BULLMQ, "`new Worker(queue, async () => {}, {concurrency: 8})`, completion included");
        results.note(id, Sides.SEED, "8 threads ZRANGEBYSCORE LIMIT 0 1 + ZREM, sleep 500 ms when empty");
    }

    /** The rate limit of {@code queue.drain.t8.limited}: far above any drain rate here, so never reached. */
    static final int LIMITED_RATE = 1_000_000;
    /** Concurrency keys of {@code queue.drain.t8.limited}'s jobs, taken in turn. */
    static final int LIMITED_KEYS = 100;
    /** Each concurrency key's limit in {@code queue.drain.t8.limited} (never reached either). */
    static final int LIMITED_KEY_LIMIT = 100;
    /** The side with the rate limit only. */
    static final String LIMITED_RATE_ONLY = "deferlock-rate";
    /** The side with the concurrency keys only. */
    static final String LIMITED_KEYS_ONLY = "deferlock-keys";
    /** The side with neither: queue.drain.t8's deferlock side, measured again in the same rounds. */
    static final String UNLIMITED = "deferlock-unlimited";
    /** deferlock's drain with both limits, with the rate limit only, with the key limits only, and with none. */
    static final List<String> LIMITED_SIDES = List.of(Sides.DEFERLOCK, LIMITED_RATE_ONLY, LIMITED_KEYS_ONLY, UNLIMITED);

    /**
     * {@code queue.drain.t8.limited}: the drain of {@code queue.drain.t8} on deferlock with a rate limit per queue
     * and a concurrency limit per key configured that the drain never reaches, against the same drain without
     * them, in the same rounds.
     */
    void drainLimited() {
        String id = "queue.drain.t8.limited";
        int n = settings.drainJobs();
        int warm = Math.max(100, n / 5);
        QueueRateLimit rate = QueueRateLimit.of(LIMITED_RATE, Duration.ofSeconds(1));
        Rounds.run(id, settings.rounds(), LIMITED_SIDES, (side, round) -> {
            redis.flushAll();
            boolean limitRate = side.equals(Sides.DEFERLOCK) || side.equals(LIMITED_RATE_ONLY);
            boolean limitKeys = side.equals(Sides.DEFERLOCK) || side.equals(LIMITED_KEYS_ONLY);
            double[] got;
            try (Jedis stats = redis.connection();
                    QueueSide q = new QueueSide.Deferlock(
                            redis,
                            "q-limited-" + side,
                            limitRate ? rate : null,
                            limitKeys ? LIMITED_KEYS : 0,
                            LIMITED_KEY_LIMIT)) {
                drainOnce(q, warm, null);
                got = drainOnce(q, n, stats);
            }
            results.add(id, side, got[0]);
            results.add(id + ".commands", side, got[1]);
            results.add(id + ".redisCpu", side, got[2]);
            Progress.line(
                    "%-36s %-22s %10s jobs/s, %.2f commands/job",
                    id, side + " r" + round, Report.number(got[0]), got[1]);
        });
        results.note(
                id,
                "method",
                "the workload of queue.drain.t8 (" + n + " due jobs stored first, a warm-up drain of " + warm
                        + " before, " + DRAIN_CONCURRENCY + " consumers of one `DelayQueueWorker`, empty handler)"
                        + " on deferlock only; " + settings.rounds() + " round(s), side order shuffled. deferlock:"
                        + " the queue has a rate limit of " + LIMITED_RATE + " per 1 s (`DelayQueue.rateLimit`,"
                        + " default burst) and every job carries one of " + LIMITED_KEYS + " concurrency keys in"
                        + " turn, each limited to " + LIMITED_KEY_LIMIT + " jobs at once"
                        + " (`concurrencyKeys().limit`); neither limit is reached. deferlock-rate: the rate limit"
                        + " only; deferlock-keys: the keys only; deferlock-unlimited: neither (queue.drain.t8's"
                        + " deferlock side, measured again in these rounds)");
    }

    /**
     * {@code queue.replay.bytesPerJob}: the memory of deferlock's replay records (docs/queue-keys.md, "Replay
     * records") right after the full drain of {@code queue.drain.t8} (the same workload, deferlock only), while
     * every record the drain wrote would still live out its TTL: {@code MEMORY USAGE} summed over the queue's
     * replay keys ÷ the jobs of the measured drain (the warm-up's records are counted too).
     */
    void replay() {
        String id = "queue.replay.bytesPerJob";
        int n = settings.drainJobs();
        int warm = Math.max(100, n / 5);
        Rounds.run(id, settings.rounds(), List.of(Sides.DEFERLOCK), (side, round) -> {
            redis.flushAll();
            String name = "q-replay";
            try (QueueSide q = QueueSide.open(side, redis, name)) {
                drainOnce(q, warm, null);
                drainOnce(q, n, null);
            } // closed: the worker's last acks are sent
            long[] records = replayRecords(name);
            double per = records[1] / (double) n;
            results.add(id, side, per);
            Progress.line(
                    "%-36s %-22s %10.3f bytes/job (%d records, %d bytes)",
                    id, side + " r" + round, per, records[0], records[1]);
        });
        results.note(
                id,
                "method",
                "the workload of queue.drain.t8 on deferlock (" + n + " due jobs stored first, a warm-up drain of "
                        + warm + " before, one `DelayQueueWorker` at concurrency " + DRAIN_CONCURRENCY
                        + ", empty handler); once the worker is closed, MEMORY USAGE summed over the queue's replay"
                        + " keys (`deferlock:dq:{q}:r:*`, SCAN) ÷ " + n + "; every record written lives 60 s, so"
                        + " none has expired yet; " + settings.rounds() + " round(s)");
    }

    /** The replay records of deferlock queue {@code name}: {count, bytes by MEMORY USAGE}. */
    private long[] replayRecords(String name) {
        long count = 0;
        long bytes = 0;
        try (Jedis jedis = redis.connection()) {
            String cursor = ScanParams.SCAN_POINTER_START;
            ScanParams match =
                    new ScanParams().match("deferlock:dq:{" + name + "}:r:*").count(1000);
            do {
                ScanResult<String> page = jedis.scan(cursor, match);
                for (String key : page.getResult()) {
                    Long used = jedis.memoryUsage(key);
                    if (used != null) {
                        count++;
                        bytes += used;
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return new long[] {count, bytes};
    }

    /** Stores n due jobs, starts 8 consumers, returns {jobs/s, commands/job, µs CPU/job}. */
    private static double[] drainOnce(QueueSide q, int n, Jedis stats) throws Exception {
        return drainOnce(q, n, stats, QueueSide.PAYLOAD_CHARS);
    }

    /**
     * Stores {@code n} due jobs of {@code chars}-character payloads (in calls of at most 1,000 jobs and 1 MiB),
     * then drains them with {@link
     * #DRAIN_CONCURRENCY} consumers; returns {jobs/s, commands/job, server CPU µs/job} when {@code stats} is
     * given, else null.
     */
    static double[] drainOnce(QueueSide q, int n, Jedis stats, int chars) throws Exception {
        // at most 1 MiB of payloads per call: 1,000 jobs of 64 KiB would be one 64 MB script call
        int chunk = Math.max(1, Math.min(CHUNK, (1 << 20) / chars));
        for (int from = 0; from < n; from += chunk) {
            int k = Math.min(chunk, n - from);
            List<String> jobs = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                jobs.add(QueueSide.payload(from + i, 0, chars));
            }
            q.addBulk(jobs, java.util.Collections.nCopies(k, 0L));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (q.ready() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        CountDownLatch done = new CountDownLatch(n);
        Redis.Snapshot before = stats == null ? null : Redis.snapshot(stats);
        long start = System.nanoTime();
        AutoCloseable consumers = q.consume(DRAIN_CONCURRENCY, p -> done.countDown());
        try {
            if (!done.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException(done.getCount() + " jobs left after 180 s");
            }
            double secs = (System.nanoTime() - start) / 1e9;
            if (stats == null) {
                return null;
            }
            Redis.Snapshot after = Redis.snapshot(stats);
            return new double[] {n / secs, after.commandsPer(before, n), after.cpuMicrosPer(before, n)};
        } finally {
            consumers.close();
        }
    }

    /** What a lateness run produced: lateness per handled job (µs) and whether it kept up. */
    record Lateness(long[] micros, long jobs, long early, double handledRate, double dueRate) {
        boolean saturated() {
            return micros.length < jobs || handledRate < 0.9 * dueRate;
        }

        double percentileMillis(double p) {
            if (micros.length == 0) {
                return Double.NaN;
            }
            long[] s = micros.clone();
            Arrays.sort(s);
            int rank = (int) Math.ceil(p / 100.0 * s.length);
            return s[Math.max(0, Math.min(s.length - 1, rank - 1))] / 1000.0;
        }
    }

    /** {@code queue.lateness.<rate>.*}: jobs fall due at a fixed rate; lateness = handler start − due, one clock. */
    void lateness() {
        for (int rate : Metrics.DUE_RATES) {
            String p = "queue.lateness." + rate + ".";
            Rounds.run(
                    p + "*",
                    settings.rounds(),
                    sides(Sides.CONSUMING, p + "p50", p + "p99", p + "max", p + "early"),
                    (side, round) -> {
                        redis.flushAll();
                        Lateness l = side.equals(Sides.BULLMQ) ? bullmqLateness(rate) : javaLateness(side, rate);
                        boolean sat = l.saturated();
                        results.add(p + "p50", side, l.percentileMillis(50), sat);
                        results.add(p + "p99", side, l.percentileMillis(99), sat);
                        results.add(p + "max", side, l.percentileMillis(100), sat);
                        results.add(p + "early", side, l.early(), sat);
                        Progress.line(
                                "%-36s %-22s p50 %s p99 %s max %s ms, handled %d of %d at %s/s%s",
                                p + "*",
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
                    p + "p99",
                    "method",
                    "jobs fall due at " + rate + "/s for "
                            + settings.latenessWindow().toMillis() + " ms; a producer adds"
                            + " each job about " + settings.latenessDelay().toMillis()
                            + " ms before its due time (in 50 ms"
                            + " ticks, each job with its own delay) while " + LATENESS_CONSUMERS + " consumers run;"
                            + " the due time is written into the payload from the client's clock and the handler reads"
                            + " the same clock at its start; a run that handled fewer jobs than fell due, or at under 90%"
                            + " of the due rate, is *saturated* and gets no verdict");
        }
    }

    /**
     * {@code queue.lateness.hz100.<rate>.*}: the same run as {@link #lateness()} with the server's {@code hz} set
     * to 100 for each round (restored to its value before after it), every side alike. BullMQ's workers wait for
     * a delayed job in a blocking pop whose timeout Redis only checks {@code hz} times a second.
     */
    void latenessAtHz100() {
        for (int rate : Metrics.HZ100_DUE_RATES) {
            String p = "queue.lateness.hz100." + rate + ".";
            Rounds.run(p + "*", settings.rounds(), sides(Sides.CONSUMING, p + "p50", p + "p99"), (side, round) -> {
                redis.flushAll();
                String hz;
                try (Jedis c = redis.connection()) {
                    hz = c.configGet("hz").getOrDefault("hz", "10");
                    c.configSet("hz", "100");
                }
                Lateness l;
                try {
                    l = side.equals(Sides.BULLMQ) ? bullmqLateness(rate) : javaLateness(side, rate);
                } finally {
                    try (Jedis c = redis.connection()) {
                        c.configSet("hz", hz);
                    }
                }
                boolean sat = l.saturated();
                results.add(p + "p50", side, l.percentileMillis(50), sat);
                results.add(p + "p99", side, l.percentileMillis(99), sat);
                Progress.line(
                        "%-36s %-22s p50 %s p99 %s ms at hz 100%s",
                        p + "*",
                        side + " r" + round,
                        Report.number(l.percentileMillis(50)),
                        Report.number(l.percentileMillis(99)),
                        sat ? " SATURATED" : "");
            });
            results.note(
                    p + "p99",
                    "method",
                    "as queue.lateness." + rate + ".p99, with `CONFIG SET hz 100` before each round and the server's"
                            + " own value (10 unless configured) restored after it, for every side; Redis checks the"
                            + " timeouts of blocked clients in its cron, hz times a second, and BullMQ's workers wait"
                            + " for the next delayed job in a blocking pop whose timeout is that job's delay, so their"
                            + " lateness follows hz; deferlock's workers are woken by a notice or their own timer");
        }
    }

    private Lateness javaLateness(String side, int rate) throws Exception {
        int n = (int) (rate * settings.latenessWindow().toMillis() / 1000);
        long delayMicros = settings.latenessDelay().toMillis() * 1000;
        long[] late = new long[n];
        AtomicLong handled = new AtomicLong();
        AtomicLong early = new AtomicLong();
        AtomicLong last = new AtomicLong();
        try (QueueSide q = QueueSide.open(side, redis, "q-late-" + side)) {
            AutoCloseable consumers = q.consume(LATENESS_CONSUMERS, payload -> {
                long now = QueueSide.nowMicros();
                long l = now - QueueSide.dueMicrosOf(payload);
                if (l < 0) {
                    early.incrementAndGet();
                }
                long i = handled.getAndIncrement();
                if (i < n) {
                    late[(int) i] = l;
                }
                last.accumulateAndGet(now, Math::max);
            });
            long t0 = QueueSide.nowMicros() + delayMicros;
            try {
                int next = 0;
                while (next < n) {
                    long horizon = QueueSide.nowMicros() + delayMicros + 50_000;
                    List<String> jobs = new ArrayList<>();
                    List<Long> delays = new ArrayList<>();
                    long now = QueueSide.nowMicros();
                    while (next < n && t0 + next * 1_000_000L / rate <= horizon) {
                        long due = t0 + next * 1_000_000L / rate;
                        jobs.add(QueueSide.payload(next, due));
                        delays.add(Math.max(0, (due - now + 999) / 1000));
                        next++;
                    }
                    if (!jobs.isEmpty()) {
                        q.addBulk(jobs, delays);
                    }
                    Thread.sleep(50);
                }
                long deadline = System.nanoTime()
                        + settings.latenessDelay().plusSeconds(3).toNanos();
                while (handled.get() < n && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            } finally {
                consumers.close();
            }
            int got = (int) Math.min(n, handled.get());
            double span = (last.get() - t0) / 1e6;
            return new Lateness(
                    Arrays.copyOf(late, got),
                    n,
                    early.get(),
                    span <= 0 ? 0 : got / Math.max(span, n / (double) rate),
                    rate);
        }
    }

    private Lateness bullmqLateness(int rate) throws Exception {
        try (BullMq b = BullMq.start(redis, "bq-late")) {
            JsonNode r = b.call(
                    BullMq.op("lateness")
                            .put("rate", rate)
                            .put("ms", settings.latenessWindow().toMillis())
                            .put("delayMs", settings.latenessDelay().toMillis())
                            .put("concurrency", LATENESS_CONSUMERS)
                            .put("graceMs", 3000),
                    settings.latenessWindow().plus(settings.latenessDelay()).plusSeconds(60));
            JsonNode lm = r.get("lateMicros");
            long[] late = new long[lm.size()];
            for (int i = 0; i < late.length; i++) {
                late[i] = lm.get(i).asLong();
            }
            long n = r.get("n").asLong();
            double span = (r.get("lastHandled").asDouble() - r.get("firstDue").asDouble()) / 1e6;
            return new Lateness(
                    late,
                    n,
                    r.get("early").asLong(),
                    span <= 0 ? 0 : late.length / Math.max(span, n / (double) rate),
                    rate);
        }
    }

    /** {@code queue.idle.*}: one idle consumer; client-sent (MONITOR) and server-executed (commandstats) commands. */
    void idle() {
        String client = "queue.idle.clientCommandsPerSec";
        String server = "queue.idle.serverCommandsPerSec";
        Rounds.run("queue.idle", settings.idleRounds(), sides(Sides.CONSUMING, client, server), (side, round) -> {
            redis.flushAll();
            double[] got;
            if (side.equals(Sides.BULLMQ)) {
                try (BullMq b = BullMq.start(redis, "bq-idle")) {
                    b.call(BullMq.op("idleStart"), timeout());
                    got = watchIdle();
                    b.call(BullMq.op("idleStop"), timeout());
                }
            } else {
                try (QueueSide q = QueueSide.open(side, redis, "q-idle-" + side)) {
                    AutoCloseable consumer = q.consume(1, p -> {});
                    try {
                        got = watchIdle();
                    } finally {
                        consumer.close();
                    }
                }
            }
            results.add(client, side, got[0]);
            results.add(server, side, got[1]);
            Progress.line(
                    "%-36s %-22s client-sent %.2f/s, server-executed %.2f/s",
                    "queue.idle", side + " r" + round, got[0], got[1]);
        });
        results.note(
                client,
                "method",
                "one consumer (concurrency 1) on an empty queue; after 1 s to settle, MONITOR counts the commands"
                        + " clients send (lines from scripts and the harness's own INFO excluded) and INFO commandstats"
                        + " the commands the server executes (inside scripts included) over "
                        + settings.idleWindow().toMillis() + " ms per round, " + settings.idleRounds()
                        + " round(s); Redisson's consumer is `take()` (its natural idle loop: one blocking BLPOP), BullMQ's a"
                        + " default `Worker`");
    }

    /** Counts client-sent and server-executed commands per second over the idle window. */
    private double[] watchIdle() throws Exception {
        Thread.sleep(1000);
        AtomicLong sent = new AtomicLong();
        Jedis monitor = redis.connection();
        Thread t = new Thread(() -> {
            try {
                monitor.monitor(new JedisMonitor() {
                    @Override
                    public void onCommand(String command) {
                        String c = command.toLowerCase(java.util.Locale.ROOT);
                        if (!c.contains(" lua]") && !c.contains("\"info\"") && !c.contains("\"monitor\"")) {
                            sent.incrementAndGet();
                        }
                    }
                });
            } catch (RuntimeException e) {
                // closed at the window's end
            }
        });
        t.setDaemon(true);
        t.start();
        Thread.sleep(200);
        try (Jedis stats = redis.connection()) {
            long s0 = sent.get();
            Redis.Snapshot before = Redis.snapshot(stats);
            long start = System.nanoTime();
            Thread.sleep(settings.idleWindow().toMillis());
            Redis.Snapshot after = Redis.snapshot(stats);
            long s1 = sent.get();
            double secs = (System.nanoTime() - start) / 1e9;
            monitor.disconnect();
            t.join(2000);
            return new double[] {(s1 - s0) / secs, (after.calls() - before.calls()) / secs};
        }
    }

    /** {@code queue.memory.bytesPerJob}: used_memory delta per pending job. */
    void memory() {
        String id = "queue.memory.bytesPerJob";
        int n = settings.memoryJobs();
        Rounds.run(id, settings.rounds(), sides(Sides.QUEUES, id), (side, round) -> {
            redis.flushAll();
            // One job first (scripts loaded, the queue's fixed keys created), then n more; each reading once
            // the side's clients are closed, so their connection buffers are not counted.
            fillAndClose(side, 1, 0);
            long before = redis.usedMemory();
            fillAndClose(side, n, 1);
            long after = redis.usedMemory();
            double per = (after - before) / (double) n;
            results.add(id, side, per);
            Progress.figure(id, side + " r" + round, per, "bytes/job");
        });
        results.note(
                id,
                "method",
                n + " jobs with a 1 h delay and a 100-byte payload; INFO used_memory after − before ÷ n; the side"
                        + " adds one job and closes its clients, the first reading; then adds n and closes, the second"
                        + " (loaded scripts, fixed keys and connection buffers not counted)");
    }

    /** The side of {@code queue.priority.claimAt1M} with 10^3 jobs pending instead of 10^6. */
    static final String PRIORITY_SMALL = "deferlock-at-10^3";
    /** Priority levels of {@code queue.priority.claimAt1M}'s jobs (0..9, taken in turn). */
    static final int PRIORITY_LEVELS = 10;
    /** Jobs per claim of {@code queue.priority.claimAt1M}. */
    static final int PRIORITY_BATCH = 100;

    /**
     * {@code queue.priority.claimAt1M}: the Redis time of a {@code claim(100)} per claimed job with 10^6 jobs pending
     * over 10 priority levels (half of each level due now, half an hour ahead), against the same claim at 10^3
     * pending in the same rounds. The two queues are filled once (bulk enqueue, 10,000 jobs a call) and kept at their
     * size: after each measured claim, 100 due jobs over the 10 levels are added back (not measured). Each claim is
     * measured alone: INFO commandstats before and after it on one connection, the usec of every command but INFO.
     * The claimed jobs stay in flight (1 h visibility, so none returns during the run). The server is flushed
     * (ASYNC) after the run. deferlock only (the peers' priorities are other designs).
     */
    void priority() throws Exception {
        String id = "queue.priority.claimAt1M";
        int calls = settings.mode().equals("full") ? 200 : 20;
        Map<String, Integer> pending = new LinkedHashMap<>();
        pending.put(Sides.DEFERLOCK, settings.mode().equals("smoke") ? 100_000 : 1_000_000);
        pending.put(PRIORITY_SMALL, 1_000);
        flushAsync();
        try (RedisClient client = redis.jedis();
                Jedis stats = redis.connection()) {
            Map<String, DelayQueue<String>> queues = new LinkedHashMap<>();
            long fillStart = System.nanoTime();
            for (Map.Entry<String, Integer> e : pending.entrySet()) {
                DelayQueue<String> q = DelayQueue.builder(client, "q-prio-" + e.getValue(), String.class)
                        .visibilityTimeout(Duration.ofHours(1))
                        .build();
                fillPriority(q, e.getValue());
                queues.put(e.getKey(), q);
                claimMeasured(q, stats, 3); // warm-up: scripts loaded, the client's connections open
            }
            Progress.line(
                    "%-36s filled %s jobs in %.1f s", id, pending.values(), (System.nanoTime() - fillStart) / 1e9);
            AtomicLong seq = new AtomicLong(2_000_000_000L);
            Rounds.run(id, settings.rounds(), List.copyOf(pending.keySet()), (side, round) -> {
                DelayQueue<String> q = queues.get(side);
                double micros = 0;
                for (int i = 0; i < calls; i++) {
                    micros += claimMeasured(q, stats, 1);
                    List<NewJob<String>> back = new ArrayList<>(PRIORITY_BATCH);
                    for (int k = 0; k < PRIORITY_BATCH; k++) {
                        back.add(NewJob.of(QueueSide.payload(seq.incrementAndGet(), 0), Duration.ZERO)
                                .withPriority(k % PRIORITY_LEVELS));
                    }
                    q.enqueueAll(back);
                }
                double perJob = micros / ((double) calls * PRIORITY_BATCH);
                results.add(id, side, perJob);
                Progress.figure(id, side + " r" + round, perJob, "µs/job");
            });
        } finally {
            flushAsync();
        }
        results.note(
                id,
                "method",
                pending.get(Sides.DEFERLOCK) + " jobs of 100 bytes (" + PRIORITY_SMALL + ": "
                        + pending.get(PRIORITY_SMALL) + ") over priorities 0.." + (PRIORITY_LEVELS - 1)
                        + " in turn, half of each level due now and half an hour ahead, enqueued once with"
                        + " `enqueueAll` (10,000 jobs a call); then per side and round " + calls + " `claim("
                        + PRIORITY_BATCH + ")` calls, each measured alone (INFO commandstats usec of every command"
                        + " but INFO, before and after the call), each followed by " + PRIORITY_BATCH + " due jobs"
                        + " added back over the levels (not measured), so the pending count stays as it was; the"
                        + " figure is the Redis time ÷ the jobs claimed; " + settings.rounds() + " round(s), side"
                        + " order shuffled; both queues live in the same server for the whole run. The target"
                        + " compares the claim at 10^6 pending with the claim at 10^3 in the same round: an"
                        + " O(log n) claim grows at most log(10^6) ÷ log(10^3) = 2 times, a claim that scanned the"
                        + " pending jobs about 1,000 times");
    }

    /** Adds n jobs over the priority levels in turn, half of each level due now, half in {@link #FAR}. */
    private static void fillPriority(DelayQueue<String> q, int n) {
        List<NewJob<String>> chunk = new ArrayList<>(10_000);
        for (int i = 0; i < n; i++) {
            Duration delay = (i / PRIORITY_LEVELS) % 2 == 0 ? Duration.ZERO : Duration.ofMillis(FAR);
            chunk.add(NewJob.of(QueueSide.payload(i, 0), delay).withPriority(i % PRIORITY_LEVELS));
            if (chunk.size() == 10_000 || i == n - 1) {
                q.enqueueAll(chunk);
                chunk.clear();
            }
        }
    }

    /**
     * Runs {@code times} {@code claim(100)} calls and returns the Redis time they took, µs (INFO commandstats usec
     * of every command but INFO, read before and after each call on {@code stats}).
     */
    private static double claimMeasured(DelayQueue<String> q, Jedis stats, int times) {
        double micros = 0;
        for (int i = 0; i < times; i++) {
            long before = Redis.commandMicros(stats);
            int got = q.claim(PRIORITY_BATCH).size();
            micros += Redis.commandMicros(stats) - before;
            if (got != PRIORITY_BATCH) {
                throw new IllegalStateException("a claim found " + got + " due jobs, not " + PRIORITY_BATCH);
            }
        }
        return micros;
    }

    /** FLUSHALL ASYNC: a synchronous flush of 10^6 jobs can outlast a client's timeout. */
    private void flushAsync() {
        try (Jedis j = redis.connection()) {
            j.flushAll(FlushMode.ASYNC);
        }
    }

    /** Opens the side, adds n jobs with a 1 h delay (payload numbers from {@code first}), closes it. */
    private void fillAndClose(String side, int n, long first) throws Exception {
        if (side.equals(Sides.BULLMQ)) {
            try (BullMq b = BullMq.start(redis, "bq-mem")) {
                b.call(BullMq.op("fill").put("n", n).put("delay", FAR), Duration.ofSeconds(180));
            }
        } else {
            try (QueueSide q = QueueSide.open(side, redis, "q-mem-" + side)) {
                AtomicLong seq = new AtomicLong(first * 1_000_000_000L);
                for (int from = 0; from < n; from += CHUNK) {
                    int k = Math.min(CHUNK, n - from);
                    List<String> jobs = new ArrayList<>(k);
                    for (int i = 0; i < k; i++) {
                        jobs.add(QueueSide.payload(seq.getAndIncrement(), 0));
                    }
                    q.addBulk(jobs, java.util.Collections.nCopies(k, FAR));
                }
            }
        }
        Thread.sleep(200);
    }

    /** {@code queue.openloop.*}: fixed-rate adds at 25/50/75 % of the slower side's 8-thread maximum. */
    void openLoop() {
        Map<String, Double> max = new LinkedHashMap<>();
        for (String side : Sides.OPEN_QUEUES) {
            try (QueueSide q = QueueSide.open(side, redis, "q-max-" + side)) {
                AtomicLong count = new AtomicLong();
                AtomicLong seq = new AtomicLong();
                long[] window = new long[2];
                LockRuns.runThreads(
                        LockRuns.THREADS,
                        settings.warmup(),
                        settings.measure(),
                        i -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), FAR),
                        count,
                        window,
                        () -> {},
                        () -> {});
                double m = count.get() / ((window[1] - window[0]) / 1e9);
                max.put(side, m);
                Progress.figure("queue.openloop (max)", side, m, "jobs/s, 8 threads closed loop");
            } catch (Exception e) {
                Progress.line("!! queue.openloop max of %s failed: %s", side, e);
            }
            redis.flushAll();
        }
        double slowest =
                max.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        String slowSide = max.entrySet().stream()
                .filter(e -> e.getValue() == slowest)
                .findFirst()
                .orElseThrow()
                .getKey();
        for (int load : Metrics.LOADS) {
            double rate = slowest * load / 100.0;
            String p = "queue.openloop." + load + ".";
            Rounds.run(p + "*", settings.rounds(), new ArrayList<>(max.keySet()), (side, round) -> {
                redis.flushAll();
                try (QueueSide q = QueueSide.open(side, redis, "q-open-" + side)) {
                    AtomicLong seq = new AtomicLong();
                    OpenLoop.Result r =
                            OpenLoop.run(rate, LockRuns.THREADS, settings.warmup(), settings.openLoop(), i -> {
                                q.add(QueueSide.payload(seq.incrementAndGet(), 0), FAR);
                                return null;
                            });
                    OpenLoop.publish(results, p, side, round, r);
                }
            });
            results.note(
                    p + "p99",
                    "method",
                    String.format(
                            java.util.Locale.ROOT,
                            "offered %.0f adds/s (%d%% of %s's %s jobs/s, the slowest side's 8-thread closed-loop maximum"
                                    + " measured just before) to every side; %d worker threads; latency from the intended start"
                                    + " to the add's answer; HdrHistogram",
                            rate,
                            load,
                            slowSide,
                            Report.number(slowest),
                            LockRuns.THREADS));
        }
    }
}
