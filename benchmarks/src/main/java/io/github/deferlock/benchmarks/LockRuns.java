package io.github.deferlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.Jedis;

/** The {@code lock.*} metrics: uncontended cycles, contention in one and in N JVMs, open-loop acquire. */
final class LockRuns {

    static final int THREADS = 8;
    static final Duration HOLD = Duration.ofMillis(1);

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    /** The results.json of an earlier run, for {@code --only lock.openloop} (sizes the load from its t8). */
    Results prior;

    LockRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    /** {@code lock.uncontended.t1/t8} with commands and server CPU per cycle. */
    void uncontended(int threads) {
        String id = "lock.uncontended.t" + threads;
        Rounds.run(id, settings.rounds(), Sides.LOCKS, (side, round) -> {
            try (LockSide s = LockSide.open(side, redis);
                    Jedis stats = redis.connection()) {
                List<LockSide.Cycle> cycles = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    cycles.add(s.lock(LockSide.freshKey("u")));
                }
                AtomicLong count = new AtomicLong();
                long[] window = new long[2];
                Redis.Snapshot[] snaps = new Redis.Snapshot[2];
                runThreads(
                        threads,
                        settings.warmup(),
                        settings.measure(),
                        i -> {
                            LockSide.Cycle c = cycles.get(i);
                            c.lock();
                            c.unlock();
                        },
                        count,
                        window,
                        () -> snaps[0] = Redis.snapshot(stats),
                        () -> snaps[1] = Redis.snapshot(stats));
                double rate = count.get() / ((window[1] - window[0]) / 1e9);
                results.add(id, side, rate);
                results.add(id + ".commands", side, snaps[1].commandsPer(snaps[0], count.get()));
                results.add(id + ".redisCpu", side, snaps[1].cpuMicrosPer(snaps[0], count.get()));
                Progress.figure(id, side + " r" + round, rate, "cycles/s");
            }
        });
        results.note(
                id,
                "method",
                threads + " thread(s), each its own key, lock()+unlock() in a loop; " + settings.rounds()
                        + " round(s), side order shuffled each round; "
                        + settings.warmup().toMillis()
                        + " ms warm-up then " + settings.measure().toMillis()
                        + " ms measured per side and round; commands and server CPU from INFO deltas over the"
                        + " measured window");
    }

    /** A loop body run by thread {@code i}. */
    @FunctionalInterface
    interface Body {
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code threads} loops; counts iterations that end inside the measured window; {@code atStart} and
     * {@code atEnd} run at the window's edges (server snapshots). The loop threads stay alive until {@code atEnd}
     * has run, so it can read their counters ({@link ClientCost}).
     */
    static void runThreads(
            int threads,
            Duration warmup,
            Duration measure,
            Body body,
            AtomicLong count,
            long[] window,
            Runnable atStart,
            Runnable atEnd)
            throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch ended = new CountDownLatch(1);
        long start = System.nanoTime() + 50_000_000L;
        long from = start + warmup.toNanos();
        long to = from + measure.toNanos();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                ready.countDown();
                try {
                    long now;
                    while ((now = System.nanoTime()) < to) {
                        body.run(n);
                        long end = System.nanoTime();
                        if (now >= from && end < to) {
                            count.incrementAndGet();
                        }
                    }
                    ended.await();
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        ready.await();
        sleepUntil(from);
        atStart.run();
        sleepUntil(to);
        try {
            atEnd.run();
        } finally {
            ended.countDown();
        }
        for (Thread t : ts) {
            t.join(30_000);
        }
        window[0] = from;
        window[1] = to;
        if (!errors.isEmpty()) {
            throw new IllegalStateException("a loop failed", errors.get(0));
        }
    }

    static void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            Thread.sleep(Math.max(0, left / 1_000_000), (int) (left % 1_000_000));
        }
    }

    /**
     * The outcome of a contention run.
     *
     * @param perContender acquisitions inside the window, per thread or process
     * @param seconds the window
     * @param waits waits to acquire (µs) of acquisitions inside the window
     * @param holdNanos total time spent inside the critical section (for the hold ceiling)
     * @param holds how many holds {@code holdNanos} sums
     */
    record Contention(long[] perContender, double seconds, Histogram waits, long holdNanos, long holds) {
        long total() {
            long t = 0;
            for (long c : perContender) {
                t += c;
            }
            return t;
        }

        double throughput() {
            return total() / seconds;
        }

        double jain() {
            double sum = 0;
            double squares = 0;
            for (long c : perContender) {
                sum += c;
                squares += (double) c * c;
            }
            return squares == 0 ? Double.NaN : sum * sum / (perContender.length * squares);
        }

        double p99WaitMillis() {
            return waits.getTotalCount() == 0 ? Double.NaN : waits.getValueAtPercentile(99) / 1000.0;
        }

        double holdCeiling() {
            return holds == 0 ? Double.NaN : 1e9 / (holdNanos / (double) holds);
        }
    }

    /** {@code threads} threads of this JVM contend for {@code key} from {@code from} to {@code to} (nanoTime). */
    static Contention contendUntil(LockSide side, String key, int threads, long from, long to)
            throws InterruptedException {
        long[] counts = new long[threads];
        Histogram waits = new Histogram(3_600_000_000L, 3);
        AtomicLong holdNanos = new AtomicLong();
        AtomicLong holds = new AtomicLong();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                LockSide.Cycle c = side.lock(key);
                Histogram mine = new Histogram(3_600_000_000L, 3);
                try {
                    while (System.nanoTime() < to) {
                        long asked = System.nanoTime();
                        c.lock();
                        long got = System.nanoTime();
                        Thread.sleep(HOLD.toMillis());
                        long held = System.nanoTime();
                        c.unlock();
                        if (asked >= from && got < to) {
                            counts[n]++;
                            mine.recordValue(Math.max(0, (got - asked) / 1000));
                            holdNanos.addAndGet(held - got);
                            holds.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
                synchronized (waits) {
                    waits.add(mine);
                }
            });
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("a contender failed", errors.get(0));
        }
        return new Contention(counts, (to - from) / 1e9, waits, holdNanos.get(), holds.get());
    }

    /** 1 JVM × 8 threads, one key, 1 ms hold. */
    void contendedOneJvm() {
        String p = "lock.contended.1jvm8t.";
        Rounds.run(p + "*", settings.rounds(), Sides.CONTENDED, (side, round) -> {
            try (LockSide s = LockSide.open(side, redis)) {
                long from = System.nanoTime() + settings.warmup().toNanos();
                Contention c = contendUntil(
                        s,
                        LockSide.freshKey("c1"),
                        THREADS,
                        from,
                        from + settings.contended().toNanos());
                publish(p, side, round, c);
            }
        });
        results.note(
                p + "throughput",
                "method",
                THREADS + " threads of one JVM lock one key, `Thread.sleep(1)` while holding, unlock, repeat; "
                        + settings.rounds() + " round(s) of "
                        + settings.contended().toMillis() + " ms per side after "
                        + settings.warmup().toMillis() + " ms warm-up, side order shuffled each round; the "
                        + "hold-ceiling side is 1 ÷ the measured mean critical-section duration");
    }

    private void publish(String prefix, String side, int round, Contention c) {
        results.add(prefix + "throughput", side, c.throughput());
        results.add(prefix + "p99wait", side, c.p99WaitMillis());
        results.add(prefix + "jain", side, c.jain());
        results.add(prefix + "throughput", Sides.HOLD_CEILING, c.holdCeiling());
        Progress.line(
                "%-36s %-22s %10s cycles/s, p99 wait %s ms, Jain %.3f",
                prefix + "*",
                side + " r" + round,
                Report.number(c.throughput()),
                Report.number(c.p99WaitMillis()),
                c.jain());
    }

    /** N JVMs × 1 thread (N = 2, 4, 8), one key, 1 ms hold; the child JVMs are started once. */
    void contendedJvms() throws Exception {
        int max = Metrics.JVMS.stream().mapToInt(Integer::intValue).max().orElse(2);
        try (ContendedWorker.Pool pool = ContendedWorker.Pool.start(max, redis)) {
            Rounds.run("lock.contended.Njvm.*", settings.rounds(), Sides.CONTENDED, (side, round) -> {
                pool.open(side);
                try {
                    for (int n : Metrics.JVMS) {
                        Contention c = pool.run(n, LockSide.freshKey("cn"), settings.warmup(), settings.contended());
                        publish("lock.contended." + n + "jvm.", side, round, c);
                        if (side.equals(Sides.DEFERLOCK) && n > 2) {
                            // the FIFO floor of this round's p99 wait: N − 1 cycles at this round's rate
                            results.add(
                                    "lock.contended." + n + "jvm.p99wait",
                                    Sides.FIFO_FLOOR,
                                    (n - 1) * 1000.0 / c.throughput());
                        }
                    }
                } finally {
                    pool.closeSide();
                }
            });
        }
        for (int n : Metrics.JVMS) {
            results.note(
                    "lock.contended." + n + "jvm.throughput",
                    "method",
                    n + " child JVMs × 1 thread lock one key, `Thread.sleep(1)` while holding; " + max + " child JVMs"
                            + " start once; each round opens a side in all of them (order shuffled each round) and"
                            + " runs N = " + Metrics.JVMS + " in turn on the first N, all starting the window together"
                            + " (a shared start time) after "
                            + settings.warmup().toMillis() + " ms warm-up; "
                            + settings.rounds() + " round(s) of "
                            + settings.contended().toMillis()
                            + " ms; Jain index over the processes' acquisitions");
        }
    }

    /** {@code lock.openloop.*}: fixed-rate acquire at 25/50/75 % of the slower side's maximum. */
    void openLoop() {
        Map<String, Double> max = new LinkedHashMap<>();
        for (String side : Sides.OPEN_LOCKS) {
            double m = results.median("lock.uncontended.t8", side);
            if (Double.isNaN(m) && prior != null) {
                m = prior.median("lock.uncontended.t8", side);
            }
            if (!Double.isNaN(m)) {
                max.put(side, m);
            }
        }
        if (max.isEmpty()) {
            throw new IllegalStateException("lock.uncontended.t8 has no figure to size the open loop from");
        }
        double slowest =
                max.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        for (int load : Metrics.LOADS) {
            double rate = slowest * load / 100.0;
            String p = "lock.openloop." + load + ".";
            Rounds.run(p + "*", settings.rounds(), new ArrayList<>(max.keySet()), (side, round) -> {
                try (LockSide s = LockSide.open(side, redis)) {
                    List<LockSide.Cycle> cycles = new ArrayList<>();
                    for (int i = 0; i < THREADS; i++) {
                        cycles.add(s.lock(LockSide.freshKey("o")));
                    }
                    OpenLoop.Result r = OpenLoop.run(rate, THREADS, settings.warmup(), settings.openLoop(), i -> {
                        LockSide.Cycle c = cycles.get(i);
                        c.lock();
                        return c::unlock;
                    });
                    OpenLoop.publish(results, p, side, round, r);
                }
            });
            results.note(
                    p + "p99",
                    "method",
                    String.format(
                            java.util.Locale.ROOT,
                            "offered %.0f acquisitions/s (%d%% of %s's %s cycles/s, the slowest side's 8-thread"
                                    + " maximum in lock.uncontended.t8) to every side; %d worker threads, each its own"
                                    + " key; latency from the intended start to lock() returning (the unlock follows,"
                                    + " untimed); HdrHistogram",
                            rate,
                            load,
                            max.entrySet().stream()
                                    .filter(e -> e.getValue() == slowest)
                                    .findFirst()
                                    .orElseThrow()
                                    .getKey(),
                            Report.number(slowest),
                            THREADS));
        }
    }
}
