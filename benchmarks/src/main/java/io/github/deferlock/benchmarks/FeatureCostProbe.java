package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.NewJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@link FeatureCostRuns}: measures deferlock's side of {@code queue.enqueue.t1}, {@code
 * queue.drain.t8} and {@code queue.memory.bytesPerJob} once, with the same workloads as {@link QueueRuns}, and
 * prints one line {@code featureCost <delay-core jar> enqueue=… enqueueCommands=… drain=… drainCommands=…
 * bytesPerJob=…}.
 *
 * <p>It runs against this build's delay-core and against an older build's (its jars first on the class path), so
 * it uses only the delay-core API that exists in both (builder, enqueue, enqueueAll, {@code NewJob.of}, the worker
 * with a concurrency) and no other class of this module that touches delay-core: a newer call there would fail
 * only on the old build, at run time.
 *
 * <pre>
 * java -cp [old delay-core and redis-support jars:]deferlock-benchmarks.jar \
 *     io.github.deferlock.benchmarks.FeatureCostProbe HOST PORT WARMUP_MS MEASURE_MS DRAIN_JOBS MEMORY_JOBS
 * </pre>
 */
public final class FeatureCostProbe {

    /** {@code QueueRuns.FAR}: not read from there, so that class (whose other runs use newer API) is never loaded. */
    static final long FAR_MS = 3_600_000L;

    /** The first word of the result line. */
    static final String MARK = "featureCost";

    private FeatureCostProbe() {}

    /** See the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        if (System.getProperty(Bench.LOG_LEVEL) == null) {
            System.setProperty(Bench.LOG_LEVEL, "warn");
        }
        Redis redis = new Redis(args[0], Integer.parseInt(args[1]));
        Duration warmup = Duration.ofMillis(Long.parseLong(args[2]));
        Duration measure = Duration.ofMillis(Long.parseLong(args[3]));
        int drainJobs = Integer.parseInt(args[4]);
        int memoryJobs = Integer.parseInt(args[5]);
        String jar = DelayQueue.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .getPath();

        redis.flushAll();
        double[] enqueue = enqueue(redis, warmup, measure);
        redis.flushAll();
        double[] drain = drain(redis, drainJobs);
        redis.flushAll();
        double bytes = memory(redis, memoryJobs);
        redis.flushAll();
        System.out.println(String.format(
                Locale.ROOT,
                "%s %s enqueue=%.3f enqueueCommands=%.4f drain=%.3f drainCommands=%.4f bytesPerJob=%.3f",
                MARK,
                jar,
                enqueue[0],
                enqueue[1],
                drain[0],
                drain[1],
                bytes));
        System.exit(0);
    }

    /** queue.enqueue.t1: {jobs/s, commands/job}. */
    private static double[] enqueue(Redis redis, Duration warmup, Duration measure) {
        try (RedisClient client = redis.jedis();
                Jedis stats = redis.connection()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "q-enqueue-fc", String.class).build();
            Duration far = Duration.ofMillis(FAR_MS);
            long seq = 0;
            long end = System.nanoTime() + warmup.toNanos();
            do {
                q.enqueue(payload(++seq), far);
            } while (System.nanoTime() < end);
            Redis.Snapshot before = Redis.snapshot(stats);
            long calls = 0;
            long start = System.nanoTime();
            end = start + measure.toNanos();
            long now;
            do {
                q.enqueue(payload(++seq), far);
                calls++;
                now = System.nanoTime();
            } while (now < end);
            Redis.Snapshot after = Redis.snapshot(stats);
            return new double[] {calls / ((now - start) / 1e9), after.commandsPer(before, calls)};
        }
    }

    /** queue.drain.t8: a warm-up drain, then n due jobs drained by 8 consumers: {jobs/s, commands/job}. */
    private static double[] drain(Redis redis, int n) throws Exception {
        try (RedisClient client = redis.jedis();
                Jedis stats = redis.connection()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "q-drain-fc", String.class).build();
            drainOnce(q, Math.max(100, n / 5), null);
            return drainOnce(q, n, stats);
        }
    }

    private static double[] drainOnce(DelayQueue<String> q, int n, Jedis stats) throws Exception {
        for (int from = 0; from < n; from += QueueRuns.CHUNK) {
            int k = Math.min(QueueRuns.CHUNK, n - from);
            List<NewJob<String>> jobs = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                jobs.add(NewJob.of(payload(from + i), Duration.ZERO));
            }
            q.enqueueAll(jobs);
        }
        CountDownLatch done = new CountDownLatch(n);
        Redis.Snapshot before = stats == null ? null : Redis.snapshot(stats);
        long start = System.nanoTime();
        DelayQueueWorker<String> w = DelayQueueWorker.builder(q, job -> done.countDown())
                .concurrency(QueueRuns.DRAIN_CONCURRENCY)
                .build()
                .start();
        try {
            if (!done.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException(done.getCount() + " jobs left after 180 s");
            }
            double secs = (System.nanoTime() - start) / 1e9;
            if (stats == null) {
                return null;
            }
            Redis.Snapshot after = Redis.snapshot(stats);
            return new double[] {n / secs, after.commandsPer(before, n)};
        } finally {
            w.close(Duration.ofSeconds(5));
        }
    }

    /** queue.memory.bytesPerJob: used_memory delta per pending job, read with the clients closed. */
    private static double memory(Redis redis, int n) throws Exception {
        fill(redis, 1, 0);
        long before = redis.usedMemory();
        fill(redis, n, 1_000_000_000L);
        long after = redis.usedMemory();
        return (after - before) / (double) n;
    }

    private static void fill(Redis redis, int n, long first) throws Exception {
        try (RedisClient client = redis.jedis()) {
            DelayQueue<String> q =
                    DelayQueue.builder(client, "q-mem-fc", String.class).build();
            long seq = first;
            for (int from = 0; from < n; from += QueueRuns.CHUNK) {
                int k = Math.min(QueueRuns.CHUNK, n - from);
                List<NewJob<String>> jobs = new ArrayList<>(k);
                for (int i = 0; i < k; i++) {
                    jobs.add(NewJob.of(payload(seq++), Duration.ofMillis(FAR_MS)));
                }
                q.enqueueAll(jobs);
            }
        }
        Thread.sleep(200);
    }

    /** {@code QueueSide.payload(seq, 0)}, written again here so the probe loads no class that names delay-core. */
    static String payload(long seq) {
        StringBuilder sb = new StringBuilder(QueueSide.PAYLOAD_CHARS);
        sb.append(seq).append(":0:");
        while (sb.length() < QueueSide.PAYLOAD_CHARS) {
            sb.append('x');
        }
        return sb.toString();
    }

    /** The figures of a result line, by name, and the jar it ran on under {@code "jar"}. */
    static java.util.Map<String, String> parse(String line) {
        String[] words = line.trim().split(" ");
        if (words.length < 3 || !words[0].equals(MARK)) {
            throw new IllegalArgumentException("not a " + MARK + " line: " + line);
        }
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put("jar", words[1]);
        for (String w : Collections.unmodifiableList(List.of(words)).subList(2, words.length)) {
            int eq = w.indexOf('=');
            out.put(w.substring(0, eq), w.substring(eq + 1));
        }
        return out;
    }
}
