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

    void uncontended(int threads) {
        String id = "lock.uncontended.t" + threads;
        for (String side : LockSide.UNCONTENDED) {
            double score = jmh(side, threads);
            results.put(id, side, score);
            Progress.figure(id, side, score, "cycles/s");
        }
        results.note(
                id,
                "method",
                "JMH throughput, " + settings.jmhIterations() + " × " + settings.jmhIterationTime()
                        + " after " + settings.jmhWarmups() + " warm-up iterations, " + settings.jmhForks()
                        + " fork(s); the figure is the median iteration");
    }

    private double jmh(String side, int threads) {
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
                .jvmArgs("-Xmx512m")
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
            return median(scores);
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed for " + side + "; see " + log, e);
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
        for (String side : List.of("deferlock", "raw", "redisson", "seed")) {
            String open = side.equals("raw") ? "fair-jvm" : side;
            Contention c;
            try (LockSide s = LockSide.open(open, redis)) {
                c = contend(s, CONTENDED_THREADS, settings.warmup(), settings.measure());
            }
            results.put(tp, side, c.throughput());
            results.put(wait, side, c.waits().percentileMillis(99));
            Progress.figure(tp, side, c.throughput(), "cycles/s");
            Progress.figure(wait, side, c.waits().percentileMillis(99), "ms");
        }
        results.note(tp, "raw", "in-process fair java.util.concurrent.locks.ReentrantLock doing the same work");
        results.note(tp, "seed", "bare Jedis SET NX PX spin lock, Thread.sleep(1) on failure");
    }

    /** The outcome of a contention run. */
    record Contention(long acquisitions, Duration measured, Samples waits) {
        double throughput() {
            return acquisitions / (measured.toNanos() / 1e9);
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
        return new Contention(count.get(), Duration.ofNanos(to - from), all);
    }

    /** 2 processes × 4 threads, one key, 1 ms hold: deferlock, Redisson, spin lock (seed). */
    void contendedTwoJvms() {
        String tp = "lock.contended.2jvm.throughput";
        String wait = "lock.contended.2jvm.p99wait";
        for (String side : List.of("deferlock", "redisson", "seed")) {
            String key = LockSide.freshKey("twojvm");
            long startAt = System.currentTimeMillis() + 5_000;
            List<JvmProcess> children = new ArrayList<>();
            long total = 0;
            Samples waits = new Samples();
            try {
                for (int i = 0; i < 2; i++) {
                    children.add(JvmProcess.start(
                            ContendedWorker.class,
                            List.of("-Xmx256m", "-XX:+UseSerialGC"),
                            side,
                            redis.uri(),
                            String.valueOf(CONTENDED_THREADS / 2),
                            key,
                            String.valueOf(startAt),
                            String.valueOf(settings.warmup().toMillis()),
                            String.valueOf(settings.measure().toMillis())));
                }
                Duration timeout = Duration.ofMillis(startAt - System.currentTimeMillis())
                        .plus(settings.warmup())
                        .plus(settings.measure())
                        .plusSeconds(60);
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
            }
            double throughput = total / (settings.measure().toNanos() / 1e9);
            results.put(tp, side, throughput);
            results.put(wait, side, waits.percentileMillis(99));
            Progress.figure(tp, side, throughput, "cycles/s");
            Progress.figure(wait, side, waits.percentileMillis(99), "ms");
        }
    }
}
