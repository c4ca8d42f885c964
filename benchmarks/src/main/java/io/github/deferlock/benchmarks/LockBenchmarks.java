package io.github.deferlock.benchmarks;

import io.github.deferlock.testing.JvmProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** The {@code lock.*} metrics: JMH for the uncontended cycles, a fixed-duration harness for contention. */
final class LockBenchmarks {

    static final int CONTENDED_THREADS = 8;
    static final Duration HOLD = Duration.ofMillis(1);

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    LockBenchmarks(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    void uncontended(int threads) throws InterruptedException {
        String id = "lock.uncontended.t" + threads;
        if (threads == 1 && settings.probe()) {
            for (String side : LockSide.UNCONTENDED) {
                results.note(id, side + " commands/cycle", commandsPerCycle(side, 500));
            }
        }
        java.util.Map<String, List<Double>> scores = new java.util.LinkedHashMap<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (String side : LockSide.UNCONTENDED) {
                List<Double> got = jmh(side, threads);
                scores.computeIfAbsent(side, k -> new ArrayList<>()).addAll(got);
                Progress.figure(id, side + " r" + round, median(got), "cycles/s");
            }
        }
        scores.forEach((side, all) -> {
            results.put(id, side, median(all));
            Progress.figure(id, side, median(all), "cycles/s (median)");
        });
        results.note(
                id,
                "method",
                "JMH throughput mode; " + settings.rounds() + " round(s), the sides taking "
                        + "turns; each a fresh fork (" + settings.jmhForks() + ") with " + settings.jmhWarmups()
                        + " warm-up and " + settings.jmhIterations() + " measured iterations of "
                        + settings.jmhIterationTime().toMillis() + " ms; the figure is the median measured iteration");
    }

    private List<Double> jmh(String side, int threads) {
        Path log;
        try {
            log = Files.createTempFile("deferlock-jmh-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Options opt = new OptionsBuilder()
                .include(UncontendedLockBenchmark.class.getName() + ".cycle")
                .param("side", side)
                .param("redis", redis.uri())
                .threads(threads)
                .warmupIterations(settings.jmhWarmups())
                .warmupTime(TimeValue.milliseconds(settings.jmhIterationTime().toMillis()))
                .measurementIterations(settings.jmhIterations())
                .measurementTime(
                        TimeValue.milliseconds(settings.jmhIterationTime().toMillis()))
                .forks(settings.jmhForks())
                .jvmArgs("-Xmx512m", "-D" + Bench.LOG_LEVEL + "=warn")
                .shouldFailOnError(true)
                .output(log.toString())
                .build();
        try {
            Collection<RunResult> runs = new Runner(opt).run();
            List<Double> scores = new ArrayList<>();
            for (RunResult run : runs) {
                run.getBenchmarkResults().forEach(b -> b.getIterationResults().stream()
                        .map(IterationResult::getPrimaryResult)
                        .forEach(r -> scores.add(r.getScore())));
            }
            if (scores.isEmpty()) {
                throw new IllegalStateException("JMH returned no result for " + side + "; see " + log);
            }
            return scores;
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for " + side + "; see " + log, e);
        }
    }

    /** Redis commands one uncontended cycle of {@code side} sends, from an INFO commandstats delta. */
    String commandsPerCycle(String side, int cycles) throws InterruptedException {
        try (LockSide s = LockSide.open(side, redis);
                redis.clients.jedis.Jedis stats = redis.connection()) {
            LockSide.Cycle c = s.lock(LockSide.freshKey("probe"));
            for (int i = 0; i < cycles; i++) { // warm: scripts loaded, connections open
                c.lock();
                c.unlock();
            }
            Thread.sleep(100);
            java.util.Map<String, Long> before = Redis.commandStats(stats);
            for (int i = 0; i < cycles; i++) {
                c.lock();
                c.unlock();
            }
            java.util.Map<String, Long> after = Redis.commandStats(stats);
            StringBuilder sb = new StringBuilder();
            new java.util.TreeMap<>(after).forEach((cmd, n) -> {
                long d = n - before.getOrDefault(cmd, 0L) - (cmd.equals("info") ? 1 : 0);
                if (d > 0) {
                    sb.append(sb.length() == 0 ? "" : ", ")
                            .append(cmd)
                            .append(' ')
                            .append(String.format(java.util.Locale.ROOT, "%.2f", d / (double) cycles));
                }
            });
            Progress.line("%-36s %-10s commands per cycle: %s", "lock.uncontended.t1", side, sb);
            return sb.toString();
        }
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** 8 threads, one key, 1 ms hold, one JVM: deferlock, fair ReentrantLock (raw), Redisson, spin lock (seed). */
    void contendedOneJvm() {
        String tp = "lock.contended.hold1ms.throughput";
        String wait = "lock.contended.hold1ms.p99wait";
        List<String> sides = List.of("deferlock", "raw", "redisson", "seed");
        java.util.Map<String, Contention> pooled = new java.util.LinkedHashMap<>();
        Duration slice = settings.measure().dividedBy(settings.rounds());
        for (int round = 1; round <= settings.rounds(); round++) {
            for (String side : sides) {
                String open = side.equals("raw") ? "fair-jvm" : side;
                Contention c;
                try (LockSide s = LockSide.open(open, redis);
                        redis.clients.jedis.Jedis stats = redis.connection()) {
                    java.util.Map<String, Long> before = Redis.commandStats(stats);
                    c = contend(s, CONTENDED_THREADS, settings.warmup(), slice);
                    if (!side.equals("raw")) {
                        results.note(
                                tp,
                                side + " commands/acquisition",
                                Redis.delta(before, Redis.commandStats(stats), Math.max(1, c.allAcquisitions())));
                    }
                }
                printRound("lock.contended.hold1ms", side, round, c);
                pooled.merge(side, c, Contention::plus);
            }
        }
        publish(pooled, tp, wait);
        results.note(
                tp,
                "method",
                CONTENDED_THREADS + " threads lock one key, `Thread.sleep(1)` while holding, "
                        + "unlock, repeat; " + settings.rounds() + " round(s) of " + slice.toMillis()
                        + " ms per side after "
                        + settings.warmup().toMillis()
                        + " ms warm-up, sides taking turns; figures pooled over the rounds");
        results.note(tp, "raw", "in-process fair java.util.concurrent.locks.ReentrantLock doing the same work");
        results.note(tp, "redisson", "`RLock.lock()`/`unlock()`, defaults (watchdog 30 s, pub/sub wake-up)");
        results.note(tp, "seed", "bare Jedis SET NX PX spin lock, Thread.sleep(1) on failure");
    }

    /** The outcome of a contention run. */
    record Contention(long acquisitions, Duration measured, Samples waits, long allAcquisitions) {
        double throughput() {
            return acquisitions / (measured.toNanos() / 1e9);
        }

        Contention plus(Contention other) {
            Samples all = new Samples();
            all.addAll(waits);
            all.addAll(other.waits);
            return new Contention(
                    acquisitions + other.acquisitions,
                    measured.plus(other.measured),
                    all,
                    allAcquisitions + other.allAcquisitions);
        }
    }

    /**
     * Runs {@code threads} threads that lock one fresh key, sleep {@link #HOLD}, unlock, again; counts the
     * acquisitions made and the waits measured in the window after the warm-up.
     */
    static Contention contend(LockSide side, int threads, Duration warmup, Duration measure) {
        String key = LockSide.freshKey("contended");
        long start = System.nanoTime();
        return contendUntil(side, key, threads, start + warmup.toNanos(), start + warmup.toNanos() + measure.toNanos());
    }

    /** Like {@link #contend} with the window given as {@link System#nanoTime()} bounds. */
    static Contention contendUntil(LockSide side, String key, int threads, long from, long to) {
        AtomicLong count = new AtomicLong();
        AtomicLong every = new AtomicLong();
        List<Samples> waits = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threads);
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < threads; i++) {
            Samples mine = new Samples();
            waits.add(mine);
            LockSide.Cycle cycle = side.lock(key);
            Thread t = new Thread(
                    () -> {
                        try {
                            while (true) {
                                long t0 = System.nanoTime();
                                if (t0 >= to) {
                                    break;
                                }
                                cycle.lock();
                                long t1 = System.nanoTime();
                                every.incrementAndGet();
                                try {
                                    if (t1 >= from && t1 < to) {
                                        count.incrementAndGet();
                                        mine.add(t1 - t0);
                                    }
                                    Thread.sleep(HOLD.toMillis());
                                } finally {
                                    cycle.unlock();
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } catch (Throwable e) {
                            errors.add(e);
                        } finally {
                            done.countDown();
                        }
                    },
                    "contender-" + i);
            workers.add(t);
        }
        workers.forEach(Thread::start);
        try {
            long slack = Duration.ofSeconds(30).toNanos();
            long waitNanos = Math.max(0, to - System.nanoTime()) + slack;
            if (!done.await(waitNanos, java.util.concurrent.TimeUnit.NANOSECONDS)) {
                workers.forEach(Thread::interrupt);
                throw new IllegalStateException("contenders did not stop within 30 s after the window");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("a contender failed", errors.get(0));
        }
        Samples all = new Samples();
        waits.forEach(all::addAll);
        return new Contention(count.get(), Duration.ofNanos(to - from), all, every.get());
    }

    /** 2 processes × 4 threads, one key, 1 ms hold: deferlock, Redisson, spin lock (seed). */
    void contendedTwoJvms() {
        String tp = "lock.contended.2jvm.throughput";
        String wait = "lock.contended.2jvm.p99wait";
        java.util.Map<String, Contention> pooled = new java.util.LinkedHashMap<>();
        Duration slice = settings.measure().dividedBy(settings.rounds());
        for (int round = 1; round <= settings.rounds(); round++) {
            for (String side : List.of("deferlock", "redisson", "seed")) {
                Contention c = twoJvms(side, slice);
                printRound("lock.contended.2jvm", side, round, c);
                pooled.merge(side, c, Contention::plus);
            }
        }
        publish(pooled, tp, wait);
        results.note(
                tp,
                "method",
                "2 JVMs × " + CONTENDED_THREADS / 2 + " threads, one key, the hold1ms loop; "
                        + "both JVMs start the window together (a go file); " + settings.rounds() + " round(s) of "
                        + slice.toMillis() + " ms per side, sides taking turns; figures pooled");
    }

    private Contention twoJvms(String side, Duration measure) {
        {
            String key = LockSide.freshKey("twojvm");
            Path go;
            try {
                go = Files.createTempFile("deferlock-2jvm-", ".go");
                Files.delete(go);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<JvmProcess> children = new ArrayList<>();
            long total = 0;
            Samples waits = new Samples();
            try {
                for (int i = 0; i < 2; i++) {
                    children.add(JvmProcess.start(
                            ContendedWorker.class,
                            List.of("-Xmx256m", "-D" + Bench.LOG_LEVEL + "=warn"),
                            side,
                            redis.uri(),
                            String.valueOf(CONTENDED_THREADS / 2),
                            key,
                            go.toString(),
                            String.valueOf(settings.warmup().toMillis()),
                            String.valueOf(measure.toMillis())));
                }
                for (JvmProcess child : children) {
                    String ready =
                            child.awaitLine(l -> l.equals("READY") || l.startsWith("FAILED"), Duration.ofSeconds(90));
                    if (!ready.equals("READY")) {
                        throw new IllegalStateException("2-JVM contender failed: " + String.join("\n", child.output()));
                    }
                }
                long startAt = System.currentTimeMillis() + 300;
                try {
                    Files.writeString(go.resolveSibling(go.getFileName() + ".tmp"), Long.toString(startAt));
                    Files.move(go.resolveSibling(go.getFileName() + ".tmp"), go);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                Duration timeout = settings.warmup().plus(measure).plusSeconds(60);
                for (JvmProcess child : children) {
                    String result = child.awaitLine(l -> l.startsWith("RESULT ") || l.startsWith("FAILED"), timeout);
                    if (result.startsWith("FAILED")) {
                        throw new IllegalStateException("2-JVM contender failed: " + String.join("\n", child.output()));
                    }
                    String[] parts = result.split(" ", 4);
                    total += Long.parseLong(parts[1]);
                    if (Long.parseLong(parts[2]) > 0) {
                        Progress.line("  warning: a %s contender started %s ms late", side, parts[2]);
                    }
                    waits.addAll(Samples.fromMicrosText(parts.length > 3 ? parts[3] : ""));
                }
            } finally {
                children.forEach(JvmProcess::close);
                try {
                    Files.deleteIfExists(go);
                } catch (IOException ignored) {
                    // a temp file
                }
            }
            return new Contention(total, measure, waits, total);
        }
    }

    private static void printRound(String metric, String side, int round, Contention c) {
        Progress.line(
                "%-36s %-10s %14s cycles/s, p99 wait %s ms",
                metric,
                side + " r" + round,
                Report.number(c.throughput()),
                Report.number(c.waits().percentileMillis(99)));
    }

    /** Records each side's pooled throughput and p99 wait. */
    private void publish(java.util.Map<String, Contention> pooled, String tp, String wait) {
        pooled.forEach((side, c) -> {
            results.put(tp, side, c.throughput());
            results.put(wait, side, c.waits().percentileMillis(99));
            Progress.figure(tp, side, c.throughput(), "cycles/s");
            Progress.figure(wait, side, c.waits().percentileMillis(99), "ms");
        });
    }
}
