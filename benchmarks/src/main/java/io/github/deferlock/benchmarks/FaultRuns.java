package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.testing.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.RedisClient;

/** {@code queue.fault.*} (SIGKILL of a worker JVM) and {@code queue.slowHandler.runs}; deferlock only. */
final class FaultRuns {

    private final Redis redis;
    private final Settings settings;
    private final Results results;

    FaultRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
    }

    /** Jobs in flight in a child JVM; SIGKILL; a fresh worker here must get every one of them. */
    void sigkill() {
        String lat = "queue.fault.redeliveryMs";
        String lost = "queue.fault.lost";
        int n = settings.faultJobs();
        Duration vis = settings.visibility();
        List<String> sides = withBullmq(List.of(Sides.DEFERLOCK, Sides.REDISSON), lat, lost);
        Rounds.run("queue.fault", settings.rounds(), sides, (side, round) -> {
            redis.flushAll();
            if (side.equals(Sides.BULLMQ)) {
                bullmqFault(round, lat, lost);
                return;
            }
            String name = "q-fault-" + round;
            try (RedisClient client = redis.jedis()) {
                DelayQueue<String> q = DelayQueue.builder(client, name, String.class)
                        .visibilityTimeout(vis)
                        .build();
                org.redisson.api.RedissonClient redisson = side.equals(Sides.REDISSON) ? redis.redisson() : null;
                try {
                    List<String> jobs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        jobs.add(QueueSide.payload(i, 0));
                    }
                    if (redisson == null) {
                        q.enqueueAll(jobs, Duration.ZERO);
                    } else {
                        redisson.<String>getBlockingQueue(name).addAll(jobs);
                    }
                    Set<String> inFlight = ConcurrentHashMap.newKeySet();
                    long killedAt = killWithJobsInFlight(name, side, n, inFlight);
                    Map<String, Long> redelivered = new ConcurrentHashMap<>();
                    java.util.function.Consumer<String> handler =
                            p -> redelivered.putIfAbsent(p.substring(0, p.indexOf(':')), System.nanoTime() - killedAt);
                    AutoCloseable worker;
                    if (redisson == null) {
                        DelayQueueWorker<String> w = DelayQueueWorker.builder(q, job -> handler.accept(job.payload()))
                                .concurrency(8)
                                .build()
                                .start();
                        worker = () -> w.close(Duration.ofSeconds(5));
                    } else {
                        worker = new QueueSide.Redisson(redisson, name, false).consume(8, handler);
                    }
                    long deadline = System.nanoTime()
                            + vis.multipliedBy(3).plusSeconds(3).toNanos();
                    try {
                        while (redelivered.size() < n && System.nanoTime() < deadline) {
                            Thread.sleep(10);
                        }
                    } finally {
                        worker.close();
                    }
                    long[] lats = inFlight.stream()
                            .filter(redelivered::containsKey)
                            .mapToLong(redelivered::get)
                            .sorted()
                            .toArray();
                    double p99 = lats.length == 0
                            ? Double.NaN
                            : lats[Math.max(0, (int) Math.ceil(0.99 * lats.length) - 1)] / 1e6;
                    int missing = n - redelivered.size();
                    if (Double.isNaN(p99)) {
                        results.unavailable(lat, side, "no job in flight at the kill was handled again");
                    } else {
                        results.add(lat, side, p99);
                    }
                    results.add(lost, side, missing);
                    Progress.line(
                            "%-36s %-22s %d in flight at the kill, redelivered p99 %s ms after it, %d lost",
                            "queue.fault", side + " r" + round, inFlight.size(), Report.number(p99), missing);
                } finally {
                    if (redisson != null) {
                        redisson.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
                    }
                }
            }
        });
        results.note(
                lat,
                "method",
                n + " due jobs; a worker JVM (concurrency 8, visibility timeout " + vis.toMillis()
                        + " ms) takes them, its handler blocks; once 8 handlers run it is SIGKILLed and a fresh worker in the"
                        + " harness starts; the figure is the p99 over the jobs that were in a handler of the killed JVM of kill"
                        + " → handler start in the fresh worker (bounded below by the visibility timeout). redisson: the same"
                        + " with the jobs in an `RBlockingQueue` taken by 8 `take()` threads (no ack: a job taken is gone);"
                        + " bullmq: a Node `Worker` (concurrency 8, lockDuration and stalledInterval = the visibility"
                        + " timeout) SIGKILLed, a fresh one with the same settings collects");
    }

    private List<String> withBullmq(List<String> sides, String... ids) {
        String why = BullMq.unavailable();
        if (why != null) {
            for (String id : ids) {
                results.unavailable(id, Sides.BULLMQ, why);
            }
            return sides;
        }
        List<String> out = new ArrayList<>(sides);
        out.add(Sides.BULLMQ);
        return out;
    }

    /**
     * BullMQ's counterpart: a Node worker (concurrency 8, lockDuration and stalledInterval = the visibility
     * timeout) takes jobs whose handlers never finish; SIGKILL; a fresh Node worker with the same settings
     * collects them (BullMQ moves a job whose lock expired back to wait at its next stalled-jobs check).
     */
    private void bullmqFault(int round, String lat, String lost) throws Exception {
        int n = settings.faultJobs();
        Duration vis = settings.visibility();
        Set<String> inFlight = new java.util.HashSet<>();
        long killedMicros;
        JsonNode handled;
        // The fresh worker's Node process is started (and connected) before the kill, as deferlock's fresh
        // worker runs in the already warm harness JVM: the figure is recovery, not process start-up.
        try (BullMq b = BullMq.start(redis, "bq-fault")) {
            b.call(BullMq.op("fill").put("n", 0).put("delay", 0), Duration.ofSeconds(60));
            try (BullMq a = BullMq.start(redis, "bq-fault")) {
                a.call(BullMq.op("fill").put("n", n).put("delay", 0), Duration.ofSeconds(60));
                a.call(BullMq.op("faultHold").put("lockMs", vis.toMillis()), Duration.ofSeconds(60));
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (inFlight.size() < Math.min(n, 8) && System.nanoTime() < deadline) {
                    JsonNode l = a.next(Duration.ofSeconds(1));
                    if (l != null && l.has("got")) {
                        inFlight.add(l.get("got").asText());
                    }
                }
                if (inFlight.size() < Math.min(n, 8)) {
                    throw new IllegalStateException("the BullMQ worker took " + inFlight.size() + " jobs");
                }
                a.kill();
                killedMicros = QueueSide.nowMicros();
            }
            Duration wait = vis.multipliedBy(3).plusSeconds(3);
            handled = b.call(
                            BullMq.op("collect")
                                    .put("n", n)
                                    .put("lockMs", vis.toMillis())
                                    .put("ms", wait.toMillis()),
                            wait.plusSeconds(60))
                    .get("handled");
        }
        long[] lats = inFlight.stream()
                .filter(handled::has)
                .mapToLong(s -> handled.get(s).asLong() - killedMicros)
                .sorted()
                .toArray();
        int missing = n - handled.size();
        double p99 = lats.length == 0 ? Double.NaN : lats[Math.max(0, (int) Math.ceil(0.99 * lats.length) - 1)] / 1e3;
        if (Double.isNaN(p99)) {
            results.unavailable(lat, Sides.BULLMQ, "no job in flight at the kill was handled again");
        } else {
            results.add(lat, Sides.BULLMQ, p99);
        }
        results.add(lost, Sides.BULLMQ, missing);
        Progress.line(
                "%-36s %-22s %d in flight at the kill, redelivered p99 %s ms after it, %d lost",
                "queue.fault", Sides.BULLMQ + " r" + round, inFlight.size(), Report.number(p99), missing);
    }

    /** Starts a worker JVM of {@code side}, waits until 8 of its handlers hold jobs, SIGKILLs it; returns when. */
    private long killWithJobsInFlight(String name, String side, int n, Set<String> inFlight)
            throws InterruptedException {
        try (JvmProcess child = JvmProcess.start(
                FaultWorker.class,
                List.of("-Xmx256m", "-D" + Bench.LOG_LEVEL + "=warn"),
                redis.uri(),
                name,
                String.valueOf(settings.visibility().toMillis()),
                side)) {
            int want = Math.min(n, 8);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline) {
                inFlight.clear();
                child.output().stream().filter(l -> l.startsWith("GOT ")).forEach(l -> inFlight.add(l.substring(4)));
                if (inFlight.size() >= want) {
                    break;
                }
                Thread.sleep(20);
            }
            if (inFlight.size() < want) {
                throw new IllegalStateException(
                        "the worker JVM handled " + inFlight.size() + " jobs: " + child.output());
            }
            child.kill();
            return System.nanoTime();
        }
    }

    /** One job whose handler takes 10 × the visibility timeout, two workers: how often does it run? */
    void slowHandler() {
        String id = "queue.slowHandler.runs";
        Duration vis = settings.visibility();
        Duration handler = vis.multipliedBy(10);
        Rounds.run(id, settings.rounds(), withBullmq(List.of(Sides.DEFERLOCK), id), (side, round) -> {
            redis.flushAll();
            if (side.equals(Sides.BULLMQ)) {
                try (BullMq b = BullMq.start(redis, "bq-slow")) {
                    JsonNode r = b.call(
                            BullMq.op("slow").put("lockMs", vis.toMillis()).put("handlerMs", handler.toMillis()),
                            handler.plusSeconds(60));
                    results.add(id, side, r.get("runs").asInt());
                    Progress.line(
                            "%-36s %-22s %d run(s)",
                            id, side + " r" + round, r.get("runs").asInt());
                }
                return;
            }
            try (RedisClient client = redis.jedis()) {
                DelayQueue<String> q = DelayQueue.builder(client, "q-slow-" + round, String.class)
                        .visibilityTimeout(vis)
                        .build();
                AtomicInteger runs = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                List<DelayQueueWorker<String>> workers = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    workers.add(DelayQueueWorker.builder(q, job -> {
                                runs.incrementAndGet();
                                long end = System.nanoTime() + handler.toNanos();
                                while (!stop.get() && System.nanoTime() < end) {
                                    Thread.sleep(10);
                                }
                            })
                            .concurrency(1)
                            .build()
                            .start());
                }
                q.enqueue(QueueSide.payload(0, 0), Duration.ZERO);
                Thread.sleep(handler.plus(vis.multipliedBy(2)).plusMillis(500).toMillis());
                stop.set(true);
                for (DelayQueueWorker<String> w : workers) {
                    w.close(Duration.ofSeconds(5));
                }
                results.add(id, side, runs.get());
                Progress.line("%-36s %-22s %d run(s)", id, side + " r" + round, runs.get());
            }
        });
        results.note(
                id,
                "method",
                "visibility timeout " + vis.toMillis() + " ms, handler " + handler.toMillis()
                        + " ms, two workers (concurrency 1 each) on one queue, one job; runs counted over the handler's time"
                        + " plus two visibility timeouts; bullmq: two `Worker`s (concurrency 1) with lockDuration and"
                        + " stalledInterval = the visibility timeout (BullMQ renews a job's lock while its handler runs)");
    }
}
