package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * A measurement, not a test (issue 31, {@code queue.priority.claimAt1M}): the cost of a claim with 10^6 jobs
 * pending, spread over the 10 priority levels (half of each level due, half an hour ahead), against the same
 * queue without priorities. For each it fills a queue of its own on one redis-server, then times {@code claim(1)}
 * and {@code claim(100)} calls, and reads the server-side cost per script call from {@code INFO commandstats}
 * ({@code evalsha} µs per call, after {@code CONFIG RESETSTAT}). The benchmarks module measures the same figure as
 * {@code queue.priority.claimAt1M} ({@code ./bench --only queue.priority.}). Run it from the repository root:
 *
 * <pre>{@code
 * ./mvnw -B -o -q -pl delay-core -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp "$(cat delay-core/target/test-classpath.txt):delay-core/target/classes:delay-core/target/test-classes" \
 *     io.github.deferlock.delay.PriorityClaimCostMain [pending, default 1000000]
 * }</pre>
 *
 * Prints one line per case.
 */
public final class PriorityClaimCostMain {
    private static final int CLAIM_ONE_CALLS = 20_000;
    private static final int CLAIM_BATCH_CALLS = 200;
    private static final int BATCH = 100;

    private PriorityClaimCostMain() {}

    /** Entry point. */
    public static void main(String[] args) {
        int pending = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        try (RedisServer server = RedisServer.start();
                RedisClient redis = Clients.pooled(server)) {
            System.out.println("redis " + server.version() + ", " + pending + " jobs pending");
            run(server, redis, pending, 1, "no priorities (level 0 only)");
            run(server, redis, pending, 10, "10 priority levels (0..9)");
        }
    }

    private static void run(RedisServer server, RedisClient redis, int pending, int levels, String label) {
        long before = usedMemory(server); // a queue of its own: a FLUSHALL of 10^6 jobs can outlast the timeout
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "cost-" + levels, Msg.class).build();
        List<NewJob<Msg>> chunk = new ArrayList<>(10_000);
        for (int i = 0; i < pending; i++) {
            int level = i % levels;
            Duration delay = (i / levels) % 2 == 0 ? Duration.ZERO : Duration.ofHours(1);
            chunk.add(NewJob.of(new Msg("x", i), delay).withPriority(level));
            if (chunk.size() == 10_000) {
                q.enqueueAll(chunk);
                chunk.clear();
            }
        }
        q.enqueueAll(chunk);
        QueueStats stats = q.stats();
        long memory = usedMemory(server) - before;

        int oneCalls = Math.min(CLAIM_ONE_CALLS, pending / 10);
        int batchCalls = Math.min(CLAIM_BATCH_CALLS, pending / 10 / BATCH);
        resetStats(server);
        long t0 = System.nanoTime();
        for (int i = 0; i < oneCalls; i++) {
            if (q.claim(1).size() != 1) {
                throw new IllegalStateException("a claim found no due job");
            }
        }
        long oneNs = (System.nanoTime() - t0) / oneCalls;
        double oneServerUs = evalshaUsecPerCall(server);

        resetStats(server);
        t0 = System.nanoTime();
        for (int i = 0; i < batchCalls; i++) {
            if (q.claim(BATCH).size() != BATCH) {
                throw new IllegalStateException("a claim found too few due jobs");
            }
        }
        long batchNs = (System.nanoTime() - t0) / batchCalls;
        double batchServerUs = evalshaUsecPerCall(server);
        System.out.printf(
                Locale.ROOT,
                "%-30s waiting %d (due %d), %.0f B/job: claim(1) %.1f µs round trip, %.1f µs in Redis;"
                        + " claim(%d) %.2f µs/job round trip, %.2f µs/job in Redis%n",
                label,
                stats.waiting(),
                stats.due(),
                (double) memory / pending,
                oneNs / 1000.0,
                oneServerUs,
                BATCH,
                batchNs / 1000.0 / BATCH,
                batchServerUs / BATCH);
    }

    private static void resetStats(RedisServer server) {
        try (Jedis j = server.newConnection()) {
            j.configResetStat();
        }
    }

    private static long usedMemory(RedisServer server) {
        try (Jedis j = server.newConnection()) {
            for (String line : j.info("memory").split("\r?\n")) {
                if (line.startsWith("used_memory:")) {
                    return Long.parseLong(
                            line.substring("used_memory:".length()).trim());
                }
            }
        }
        return -1;
    }

    /** {@code usec_per_call} of {@code evalsha} in {@code INFO commandstats}. */
    private static double evalshaUsecPerCall(RedisServer server) {
        try (Jedis j = server.newConnection()) {
            for (String line : j.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:")) {
                    for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
                        if (part.startsWith("usec_per_call=")) {
                            return Double.parseDouble(part.substring("usec_per_call=".length()));
                        }
                    }
                }
            }
        }
        return Double.NaN;
    }
}
