package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import redis.clients.jedis.Jedis;

/**
 * The {@code curve.*} ids of issue 30: the lock and queue workloads of {@link LockRuns} and {@link QueueRuns},
 * each measured at a series of points per side (threads, JVMs, lock names, payload bytes, pending jobs, offered
 * load) on the same sides ({@link LockSide}, {@link QueueSide}, {@link BullMq}). A round opens a side once and
 * runs every point of the curve in it, smallest first; {@link Report} draws the charts ({@link Charts}).
 */
final class CurveRuns {

    /** Jobs per bulk add of the depth curve's pending jobs. */
    static final int FILL_CHUNK = 100;

    private final Redis redis;
    private final Settings settings;
    private final Results results;
    private final String bullmqMissing;

    CurveRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
        this.bullmqMissing = BullMq.unavailable();
    }

    /** {@code all} without BullMQ when it cannot run here; its curves then say why. */
    private List<String> sides(List<String> all, String prefix) {
        List<String> out = new ArrayList<>(all);
        if (bullmqMissing != null && out.remove(Sides.BULLMQ)) {
            for (Curve c : Curves.ALL) {
                if (c.id().startsWith(prefix) && c.sides().contains(Sides.BULLMQ)) {
                    results.curveUnavailable(c.id(), Sides.BULLMQ, bullmqMissing);
                }
            }
        }
        return out;
    }

    private int rounds() {
        return Curves.rounds(settings);
    }

    private void method(String prefix, String text) {
        for (Curve c : Curves.ALL) {
            if (c.id().startsWith(prefix)) {
                results.note(c.id(), "method", text + "; " + rounds() + " round(s), side order shuffled each round");
            }
        }
    }

    private static void progress(String prefix, String side, int round, double x, String text, Object... args) {
        Progress.line(
                "%-36s %-22s %s",
                prefix + "* @" + Report.number(x), side + " r" + round, String.format(Locale.ROOT, text, args));
    }

    /** {@code curve.lock.threads.*}: the uncontended cycle of lock.uncontended at 1–64 threads. */
    void lockThreads() {
        String p = "curve.lock.threads.";
        Rounds.run(p + "*", rounds(), Curves.LOCKS, (side, round) -> {
            redis.flushAll();
            try (LockSide s = LockSide.open(side, redis)) {
                warmUp(s);
                for (int n : Curves.threads(settings)) {
                    List<LockSide.Cycle> cycles = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        cycles.add(s.lock(LockSide.freshKey("ct")));
                    }
                    Recorder cycleMicros = new Recorder(3);
                    AtomicLong count = new AtomicLong();
                    long[] window = new long[2];
                    ClientCost[] cost = new ClientCost[2];
                    Histogram[] h = new Histogram[1];
                    LockRuns.runThreads(
                            n,
                            settings.warmup(),
                            settings.measure(),
                            i -> {
                                LockSide.Cycle c = cycles.get(i);
                                long t0 = System.nanoTime();
                                c.lock();
                                c.unlock();
                                cycleMicros.recordValue((System.nanoTime() - t0) / 1000);
                            },
                            count,
                            window,
                            () -> {
                                cycleMicros.getIntervalHistogram();
                                cost[0] = ClientCost.now();
                            },
                            () -> {
                                cost[1] = ClientCost.now();
                                h[0] = cycleMicros.getIntervalHistogram();
                            });
                    long ops = count.get();
                    double rate = ops / ((window[1] - window[0]) / 1e9);
                    double p99 = h[0].getTotalCount() == 0 ? Double.NaN : h[0].getValueAtPercentile(99);
                    results.addPoint(p + "throughput", side, n, rate, false);
                    results.addPoint(p + "p99", side, n, p99, false);
                    results.addPoint(p + "clientCpu", side, n, cost[1].cpuMicrosPer(cost[0], ops), false);
                    results.addPoint(p + "allocated", side, n, cost[1].bytesPer(cost[0], ops), false);
                    progress(
                            p,
                            side,
                            round,
                            n,
                            "%s cycles/s, p99 %s µs, %s µs CPU and %s bytes per cycle",
                            Report.number(rate),
                            Report.number(p99),
                            Report.number(cost[1].cpuMicrosPer(cost[0], ops)),
                            Report.number(cost[1].bytesPer(cost[0], ops)));
                }
            }
        });
        method(
                p,
                "n threads of one JVM, each its own key, lock()+unlock() in a loop (lock.uncontended's workload),"
                        + " n = " + Curves.threads(settings) + "; "
                        + settings.warmup().toMillis() + " ms warm-up then "
                        + settings.measure().toMillis()
                        + " ms measured per point; every cycle timed into an HdrHistogram;"
                        + " client CPU and allocation over the measured window (ClientCost)");
    }

    /**
     * One thread cycles an own key for the warm-up time, untimed, before a side's first point: its first calls
     * (script loads, connection pool, watchdog, JIT) would otherwise fall on the smallest point only.
     */
    private void warmUp(LockSide s) throws Exception {
        LockSide.Cycle c = s.lock(LockSide.freshKey("cw"));
        QueueRuns.timed(settings.warmup(), () -> {
            c.lock();
            c.unlock();
        });
    }

    /** {@code curve.lock.jvms.*}: lock.contended's N JVMs × 1 thread on one key, N = 1–8. */
    void lockJvms() throws Exception {
        String p = "curve.lock.jvms.";
        List<Integer> xs = Curves.jvms(settings);
        try (ContendedWorker.Pool pool = ContendedWorker.Pool.start(Collections.max(xs), redis)) {
            Rounds.run(p + "*", rounds(), Curves.WAITING_LOCKS, (side, round) -> {
                pool.open(side);
                try {
                    for (int n : xs) {
                        LockRuns.Contention c =
                                pool.run(n, LockSide.freshKey("cj"), settings.warmup(), settings.contended());
                        results.addPoint(p + "throughput", side, n, c.throughput(), false);
                        results.addPoint(p + "p99wait", side, n, c.p99WaitMillis(), false);
                        progress(
                                p,
                                side,
                                round,
                                n,
                                "%s cycles/s, p99 wait %s ms",
                                Report.number(c.throughput()),
                                Report.number(c.p99WaitMillis()));
                    }
                } finally {
                    pool.closeSide();
                }
            });
        }
        method(
                p,
                "N child JVMs × 1 thread lock one key, `Thread.sleep(1)` while holding (lock.contended's"
                        + " workload), N = " + xs + "; the children start once, all N start each window together after "
                        + settings.warmup().toMillis() + " ms warm-up; "
                        + settings.contended().toMillis() + " ms measured");
    }

    /** {@code curve.lock.names.throughput}: 8 threads, each cycle on a name drawn from N distinct names. */
    void lockNames() {
        String id = "curve.lock.names.throughput";
        int threads = LockRuns.THREADS;
        Rounds.run(id, rounds(), Curves.LOCKS, (side, round) -> {
            redis.flushAll();
            try (LockSide s = LockSide.open(side, redis)) {
                warmUp(s);
                for (int names : Curves.names(settings)) {
                    int share = Math.max(1, names / threads);
                    AtomicLong count = new AtomicLong();
                    long[] window = new long[2];
                    LockRuns.runThreads(
                            threads,
                            settings.warmup(),
                            settings.measure(),
                            i -> {
                                // thread i owns the names ≡ i (mod threads): no two threads meet on a name
                                long name = i
                                        + (long) threads
                                                * ThreadLocalRandom.current().nextInt(share);
                                LockSide.Cycle c = s.lock("nm" + names + ":" + name);
                                c.lock();
                                c.unlock();
                            },
                            count,
                            window,
                            () -> {},
                            () -> {});
                    double rate = count.get() / ((window[1] - window[0]) / 1e9);
                    results.addPoint(id, side, names, rate, false);
                    progress(id, side, round, names, "%s cycles/s", Report.number(rate));
                }
            }
        });
        method(
                id,
                threads + " threads; thread i owns the names i, i + " + threads + ", i + " + 2 * threads
                        + ", … of N = " + Curves.names(settings) + " and locks and unlocks one drawn at random in each"
                        + " cycle (the side's lock object is looked up per cycle, as a caller with many names does), so no"
                        + " two threads meet on a name; the points run smallest first on one server, so what the sides"
                        + " leave per name (fencing counters) accumulates; "
                        + settings.warmup().toMillis()
                        + " ms warm-up then " + settings.measure().toMillis() + " ms measured per point");
    }

    /** {@code curve.lock.load.*}: open-loop acquire at 10–90 % of each side's own 8-thread capacity. */
    void lockLoad() {
        String p = "curve.lock.load.";
        Rounds.run(p + "*", rounds(), Curves.OPEN_LOCKS, (side, round) -> {
            redis.flushAll();
            try (LockSide s = LockSide.open(side, redis)) {
                List<LockSide.Cycle> cycles = new ArrayList<>();
                for (int i = 0; i < LockRuns.THREADS; i++) {
                    cycles.add(s.lock(LockSide.freshKey("cl")));
                }
                loadCurve(
                        p,
                        side,
                        round,
                        i -> {
                            cycles.get(i).lock();
                            cycles.get(i).unlock();
                        },
                        i -> {
                            LockSide.Cycle c = cycles.get(i);
                            c.lock();
                            return c::unlock;
                        });
            }
        });
        loadMethod(
                p, "lock()+unlock() rate (each thread its own key)", "lock() returning (the unlock follows, untimed)");
    }

    /** {@code curve.queue.load.*}: open-loop add at 10–90 % of each side's own 8-thread capacity. */
    void queueLoad() {
        String p = "curve.queue.load.";
        Rounds.run(p + "*", rounds(), Curves.JAVA_ADDING, (side, round) -> {
            redis.flushAll();
            try (QueueSide q = QueueSide.open(side, redis, "cq-load-" + side)) {
                AtomicLong seq = new AtomicLong();
                loadCurve(p, side, round, i -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), QueueRuns.FAR), i -> {
                    q.add(QueueSide.payload(seq.incrementAndGet(), 0), QueueRuns.FAR);
                    return null;
                });
            }
        });
        loadMethod(p, "add rate (1 h delay, 100-byte payload)", "the add's answer");
    }

    private void loadMethod(String p, String capacity, String until) {
        method(
                p,
                "each side's capacity is its own " + LockRuns.THREADS + "-thread closed-loop " + capacity
                        + ", measured first in the same round; then fixed-rate arrivals at " + Curves.loads(settings)
                        + " % of it go to " + LockRuns.THREADS + " worker threads; latency from the intended start to "
                        + until + "; " + settings.warmup().toMillis() + " ms warm-up then "
                        + settings.openLoop().toMillis()
                        + " ms per point; a point under 95 % of the offered rate is marked saturated");
    }

    /** Measures the side's closed-loop capacity, then records p50 and p99 at each offered load under prefix. */
    private void loadCurve(String p, String side, int round, LockRuns.Body closed, OpenLoop.Op open) throws Exception {
        AtomicLong count = new AtomicLong();
        long[] window = new long[2];
        LockRuns.runThreads(
                LockRuns.THREADS, settings.warmup(), settings.measure(), closed, count, window, () -> {}, () -> {});
        double capacity = count.get() / ((window[1] - window[0]) / 1e9);
        results.note(p + "p99", side + " capacity", Report.number(capacity) + " operations/s (the last round's)");
        for (int load : Curves.loads(settings)) {
            OpenLoop.Result r = OpenLoop.run(
                    capacity * load / 100.0, LockRuns.THREADS, settings.warmup(), settings.openLoop(), open);
            results.addPoint(p + "p50", side, load, r.percentileMillis("p50"), r.saturated());
            results.addPoint(p + "p99", side, load, r.percentileMillis("p99"), r.saturated());
            progress(
                    p,
                    side,
                    round,
                    load,
                    "offered %s/s achieved %s/s, p50 %s ms, p99 %s ms%s",
                    Report.number(r.offered()),
                    Report.number(r.achieved()),
                    Report.number(r.percentileMillis("p50")),
                    Report.number(r.percentileMillis("p99")),
                    r.saturated() ? " SATURATED" : "");
        }
    }

    /** The jobs of one drain point: at most 32 MiB of payloads, at least 200 jobs. */
    private int drainJobs(int chars) {
        return Math.max(200, Math.min(settings.drainJobs(), (32 << 20) / chars));
    }

    private Duration timeout() {
        return settings.measure().plus(settings.warmup()).multipliedBy(3).plusSeconds(120);
    }

    /** {@code curve.queue.payload.*}: queue.enqueue.t1 and queue.drain.t8 at payloads of 100 B–64 KiB. */
    void queuePayload() {
        String p = "curve.queue.payload.";
        Rounds.run(p + "*", rounds(), sides(Curves.ADDING, p), (side, round) -> {
            redis.flushAll();
            if (side.equals(Sides.BULLMQ)) {
                try (BullMq b = BullMq.start(redis, "cq-payload")) {
                    for (int size : Curves.payloads(settings)) {
                        JsonNode r = b.call(
                                BullMq.op("addFor")
                                        .put("ms", settings.measure().toMillis())
                                        .put("warmMs", settings.warmup().toMillis())
                                        .put("delay", QueueRuns.FAR)
                                        .put("size", size),
                                timeout());
                        double rate = r.get("count").asLong() / r.get("seconds").asDouble();
                        int n = drainJobs(size);
                        b.call(BullMq.op("fill").put("n", n).put("delay", 0).put("size", size), timeout());
                        JsonNode d = b.call(
                                BullMq.op("drain").put("n", n).put("concurrency", QueueRuns.DRAIN_CONCURRENCY),
                                Duration.ofSeconds(180));
                        double drain = n / d.get("seconds").asDouble();
                        results.addPoint(p + "enqueue", side, size, rate, false);
                        results.addPoint(p + "drain", side, size, drain, false);
                        progress(
                                p,
                                side,
                                round,
                                size,
                                "enqueue %s jobs/s, drain %s jobs/s",
                                Report.number(rate),
                                Report.number(drain));
                    }
                }
                return;
            }
            try (QueueSide q = QueueSide.open(side, redis, "cq-payload-" + side);
                    Jedis stats = redis.connection()) {
                AtomicLong seq = new AtomicLong();
                for (int size : Curves.payloads(settings)) {
                    QueueRuns.timed(
                            settings.warmup(),
                            () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0, size), QueueRuns.FAR));
                    ClientCost before = ClientCost.now();
                    double[] rate = QueueRuns.timed(
                            settings.measure(),
                            () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0, size), QueueRuns.FAR));
                    ClientCost after = ClientCost.now();
                    long ops = (long) rate[1];
                    results.addPoint(p + "enqueue", side, size, rate[0], false);
                    results.addPoint(p + "clientCpu", side, size, after.cpuMicrosPer(before, ops), false);
                    results.addPoint(p + "allocated", side, size, after.bytesPer(before, ops), false);
                    double drain = Double.NaN;
                    if (Curves.CONSUMING.contains(side)) {
                        drain = drain(side, "cq-payload-" + side, drainJobs(size), size, stats);
                        results.addPoint(p + "drain", side, size, drain, false);
                    }
                    progress(
                            p,
                            side,
                            round,
                            size,
                            "enqueue %s jobs/s (%s µs CPU, %s bytes per add), drain %s jobs/s",
                            Report.number(rate[0]),
                            Report.number(after.cpuMicrosPer(before, ops)),
                            Report.number(after.bytesPer(before, ops)),
                            Report.number(drain));
                }
            }
        });
        method(
                p,
                "at each payload size " + Curves.payloads(settings) + " (ASCII, bytes = characters): one thread"
                        + " adds with a 1 h delay, " + settings.warmup().toMillis() + " ms warm-up then "
                        + settings.measure().toMillis()
                        + " ms measured (queue.enqueue.t1's workload; the client CPU and"
                        + " allocation of that window, Java sides); then due jobs of that size are stored (at most "
                        + settings.drainJobs() + ", at most 32 MiB of payload) and drained by "
                        + QueueRuns.DRAIN_CONCURRENCY + " consumers after a warm-up drain of a fifth as many"
                        + " (queue.drain.t8's workload); the added jobs stay pending beside them");
    }

    /** {@code curve.queue.depth.*}: add and drain beside 10³–10⁶ pending jobs that are not due. */
    void queueDepth() {
        String p = "curve.queue.depth.";
        int due = Math.max(500, settings.drainJobs() / 4);
        Rounds.run(p + "*", rounds(), sides(Curves.ADDING, p), (side, round) -> {
            redis.flushAll();
            long pending = 0;
            if (side.equals(Sides.BULLMQ)) {
                try (BullMq b = BullMq.start(redis, "cq-depth")) {
                    for (int depth : Curves.depths(settings)) {
                        if (depth > pending) {
                            b.call(
                                    BullMq.op("fill").put("n", depth - pending).put("delay", QueueRuns.FAR),
                                    Duration.ofMinutes(10));
                            pending = depth;
                        }
                        b.call(BullMq.op("fill").put("n", due).put("delay", 0), timeout());
                        JsonNode d = b.call(
                                BullMq.op("drain").put("n", due).put("concurrency", QueueRuns.DRAIN_CONCURRENCY),
                                Duration.ofSeconds(180));
                        JsonNode r = b.call(
                                BullMq.op("addFor")
                                        .put("ms", settings.measure().toMillis())
                                        .put("warmMs", settings.warmup().toMillis())
                                        .put("delay", QueueRuns.FAR),
                                timeout());
                        pending += r.get("total").asLong();
                        depthPoint(
                                p,
                                side,
                                round,
                                depth,
                                r.get("count").asLong() / r.get("seconds").asDouble(),
                                due / d.get("seconds").asDouble());
                    }
                }
                return;
            }
            try (QueueSide q = QueueSide.open(side, redis, "cq-depth-" + side);
                    Jedis stats = redis.connection()) {
                AtomicLong seq = new AtomicLong();
                for (int depth : Curves.depths(settings)) {
                    while (pending < depth) {
                        // 100 per call: Redisson's bulk add is that many offerAsync in flight at once
                        int k = (int) Math.min(FILL_CHUNK, depth - pending);
                        List<String> jobs = new ArrayList<>(k);
                        for (int i = 0; i < k; i++) {
                            jobs.add(QueueSide.payload(seq.incrementAndGet(), 0));
                        }
                        q.addBulk(jobs, Collections.nCopies(k, QueueRuns.FAR));
                        pending += k;
                    }
                    double drain = Double.NaN;
                    if (Curves.CONSUMING.contains(side)) {
                        drain = drain(side, "cq-depth-" + side, due, QueueSide.PAYLOAD_CHARS, stats);
                    }
                    double[] warm = QueueRuns.timed(
                            settings.warmup(), () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), QueueRuns.FAR));
                    double[] rate = QueueRuns.timed(
                            settings.measure(),
                            () -> q.add(QueueSide.payload(seq.incrementAndGet(), 0), QueueRuns.FAR));
                    pending += (long) (warm[1] + rate[1]);
                    depthPoint(p, side, round, depth, rate[0], drain);
                }
            }
        });
        method(
                p,
                "at each depth " + Curves.depths(settings) + " (jobs pending with a 1 h delay, 100-byte payloads,"
                        + " added in bulk, " + FILL_CHUNK
                        + " per call, before the point; the adds of the earlier points stay pending too): " + due
                        + " due jobs are stored and drained by " + QueueRuns.DRAIN_CONCURRENCY
                        + " consumers (after a warm-up"
                        + " drain of a fifth as many), then one thread"
                        + " adds with a 1 h delay, " + settings.warmup().toMillis() + " ms warm-up then "
                        + settings.measure().toMillis() + " ms measured");
    }

    /**
     * queue.drain.t8's drain of {@code n} due jobs of {@code chars} characters on the queue {@code name}, after a
     * warm-up drain of a fifth as many; returns jobs/s. Each drain opens the side afresh: Redisson's consumers,
     * interrupted in {@code take()}, can leave a BLPOP on the server that takes the next drain's first job, and
     * only closing their client ends it.
     */
    private double drain(String side, String name, int n, int chars, Jedis stats) throws Exception {
        try (QueueSide warm = QueueSide.open(side, redis, name)) {
            QueueRuns.drainOnce(warm, Math.max(100, n / 5), null, chars);
        }
        try (QueueSide q = QueueSide.open(side, redis, name)) {
            return QueueRuns.drainOnce(q, n, stats, chars)[0];
        }
    }

    private void depthPoint(String p, String side, int round, int depth, double enqueue, double drain) {
        results.addPoint(p + "enqueue", side, depth, enqueue, false);
        if (!Double.isNaN(drain)) {
            results.addPoint(p + "drain", side, depth, drain, false);
        }
        progress(
                p,
                side,
                round,
                depth,
                "enqueue %s jobs/s, drain %s jobs/s",
                Report.number(enqueue),
                Report.number(drain));
    }
}
