package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * A measurement, not a test: the Redis commands a job with a concurrency key costs (docs/delay-queue.md,
 * "Concurrency per key", Cost). It stores 2,000 due jobs, every one with one of 100 keys in turn (limit 100 each,
 * never reached, the workload of the benchmark {@code queue.drain.t8.limited}), drains them with one {@link
 * DelayQueueWorker} of 8 threads, and reads the commands the server ran from {@code INFO commandstats} (deltas,
 * the scripts' inner commands included); then the same without keys. Prints the commands per job of each and the
 * difference per command. Run it from the repository root:
 *
 * <pre>{@code
 * ./mvnw -B -q -pl delay-core -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp "$(cat delay-core/target/test-classpath.txt):delay-core/target/classes:delay-core/target/test-classes" \
 *     io.github.deferlock.delay.KeyedJobCostMain [jobs, default 2000] [rounds, default 3]
 * }</pre>
 */
public final class KeyedJobCostMain {
    private static final int KEYS = 100;
    private static final int LIMIT = 100;
    private static final int THREADS = 8;

    private KeyedJobCostMain() {}

    /** Entry point. */
    public static void main(String[] args) throws InterruptedException {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (RedisServer server = RedisServer.start();
                RedisClient redis = Clients.pooled(server)) {
            System.out.println("redis " + server.version() + ", " + jobs + " jobs, " + KEYS + " keys (limit " + LIMIT
                    + "), a worker of " + THREADS + " threads");
            for (int round = 0; round < rounds; round++) {
                Map<String, Long> plain = drain(server, redis, "cost-plain-" + round, jobs, false);
                Map<String, Long> keyed = drain(server, redis, "cost-keyed-" + round, jobs, true);
                long p = total(plain);
                long k = total(keyed);
                System.out.printf(
                        Locale.ROOT,
                        "round %d: without keys %.2f commands/job, with keys %.2f commands/job: %.2f more per"
                                + " keyed job%n",
                        round,
                        (double) p / jobs,
                        (double) k / jobs,
                        (double) (k - p) / jobs);
                Map<String, Long> diff = new TreeMap<>();
                for (String c : keyed.keySet()) {
                    diff.put(c, keyed.get(c) - plain.getOrDefault(c, 0L));
                }
                for (String c : plain.keySet()) {
                    diff.putIfAbsent(c, -plain.get(c));
                }
                StringBuilder line = new StringBuilder("  per keyed job, more than without:");
                diff.forEach((c, n) -> {
                    if (n != 0) {
                        line.append(String.format(Locale.ROOT, " %s %+.2f", c, (double) n / jobs));
                    }
                });
                System.out.println(line);
            }
        }
    }

    /** The commands (name -> calls) the server ran while a worker drained {@code n} stored jobs. */
    private static Map<String, Long> drain(RedisServer server, RedisClient redis, String name, int n, boolean keys)
            throws InterruptedException {
        DelayQueue<Msg> q = DelayQueue.builder(redis, name, Msg.class).build();
        if (keys) {
            q.concurrencyKeys().limit(LIMIT);
        }
        List<NewJob<Msg>> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            NewJob<Msg> job = NewJob.of(new Msg("x", i));
            all.add(keys ? job.withConcurrencyKey("k" + i % KEYS) : job);
        }
        q.enqueueAll(all);
        CountDownLatch done = new CountDownLatch(n);
        Map<String, Long> before = calls(server);
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> done.countDown())
                .concurrency(THREADS)
                .build()
                .start()) {
            if (!done.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(done.getCount() + " jobs left");
            }
            worker.close(Duration.ofSeconds(5)); // flushes the last acks
        }
        Map<String, Long> after = calls(server);
        if (q.stats().inFlight() > 0 || q.stats().waiting() > 0) {
            throw new IllegalStateException("jobs left: " + q.stats());
        }
        Map<String, Long> delta = new TreeMap<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (d != 0 && !e.getKey().equals("info")) {
                delta.put(e.getKey(), d);
            }
        }
        return delta;
    }

    private static long total(Map<String, Long> calls) {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Map<String, Long> calls(RedisServer server) {
        Map<String, Long> out = new HashMap<>();
        try (Jedis j = server.newConnection()) {
            for (String line : j.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    out.put(
                            line.substring("cmdstat_".length(), line.indexOf(':')),
                            Long.parseLong(line.substring(at, line.indexOf(',', at))));
                }
            }
        }
        return out;
    }
}
