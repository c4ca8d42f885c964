package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The endurance run of issue 29: steady mixed load held on two client JVMs ({@link EnduranceWorker}) against a
 * fresh redis-server, sampled every 10 s, with the check that nothing grows after the warm-up ({@link Flatness}).
 * Writes {@code benchmarks/endurance.json}, the charts {@code docs/endurance-*.png} and the block between the
 * endurance markers of {@code docs/guarantees.md} ({@link EnduranceReport}). Exits 1 when a curve grew.
 *
 * <pre>
 * ./endurance [--minutes N | --short] [--queue-rate JOBS/S] [--stream-rate MSGS/S] [--lock-threads N]
 *             [--cold-names N] [--interval S] [--redis redis://host:port] [--out DIR] [--note TEXT]
 *             [--render-only]
 * </pre>
 *
 * Warm-up: a quarter of the run, at most 5 minutes (30 minutes: the first 5; {@code --short}, 2 minutes: the
 * first 30 s). The first window after warm-up and the last window of the run each last a quarter of the run, at
 * most 1 minute.
 */
public final class Endurance {

    static final Path JSON = Path.of("benchmarks/endurance.json");
    static final Path GUARANTEES = Path.of("docs/guarantees.md");

    private Endurance() {}

    /** The run's settings. */
    record Options(
            double minutes,
            boolean shortMode,
            double queueRate,
            double streamRate,
            int lockThreads,
            long lockPauseMs,
            double hotShare,
            int hotNames,
            int coldNames,
            int intervalSeconds,
            int capacityJobs) {

        double seconds() {
            return minutes * 60;
        }

        double warmupSeconds() {
            return Math.min(300, seconds() / 4);
        }

        double windowSeconds() {
            return Math.min(60, seconds() / 4);
        }

        /** Done markers live a fifth of the warm-up, so they reach their steady count long before it ends. */
        long doneTtlMillis() {
            return (long) (warmupSeconds() * 1000 / 5);
        }
    }

    /** Runs the endurance run; exit 0 when every curve stayed flat, 1 when one grew, 2 on bad arguments. */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        if (System.getProperty(Bench.LOG_LEVEL) == null) {
            System.setProperty(Bench.LOG_LEVEL, "warn");
        }
        int code;
        try {
            code = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("endurance: " + e.getMessage());
            code = 2;
        } catch (Exception e) {
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    static int run(String[] args) throws Exception {
        double minutes = 30;
        boolean shortMode = false;
        double queueRate = 0;
        double streamRate = 100;
        int lockThreads = 2;
        int coldNames = 2_000;
        int interval = 10;
        String redisUri = null;
        String note = null;
        Path out = Path.of(".");
        boolean renderOnly = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--minutes" -> minutes = Double.parseDouble(value(args, ++i, "--minutes"));
                case "--short" -> {
                    shortMode = true;
                    minutes = 2;
                }
                case "--queue-rate" -> queueRate = Double.parseDouble(value(args, ++i, "--queue-rate"));
                case "--stream-rate" -> streamRate = Double.parseDouble(value(args, ++i, "--stream-rate"));
                case "--lock-threads" -> lockThreads = Integer.parseInt(value(args, ++i, "--lock-threads"));
                case "--cold-names" -> coldNames = Integer.parseInt(value(args, ++i, "--cold-names"));
                case "--interval" -> interval = Integer.parseInt(value(args, ++i, "--interval"));
                case "--redis" -> redisUri = value(args, ++i, "--redis");
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--note" -> note = value(args, ++i, "--note");
                case "--render-only" -> renderOnly = true;
                case "-h", "--help" -> {
                    System.err.println("usage: ./endurance [--minutes N | --short] [--queue-rate JOBS/S]"
                            + " [--stream-rate MSGS/S] [--lock-threads N] [--cold-names N] [--interval S]"
                            + " [--redis redis://host:port] [--out DIR] [--note TEXT] [--render-only]");
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (try --help)");
            }
        }
        if (minutes * 60 < 8 * interval) {
            throw new IllegalArgumentException("--minutes " + minutes + " is too short for samples every " + interval
                    + " s: at least " + (8 * interval / 60.0) + " minutes");
        }
        Path json = out.resolve(JSON);
        if (renderOnly) {
            // judged again with today's rule; the samples are kept as they are
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode doc = (ObjectNode) mapper.readTree(json.toFile());
            boolean grew = judgeInto(doc, true);
            mapper.writeValue(json.toFile(), doc);
            JsonNode written = mapper.readTree(json.toFile());
            EnduranceReport.charts(written, out.resolve("docs"));
            EnduranceReport.writeBlock(out.resolve(GUARANTEES), written);
            Progress.line("rewrote %s, the charts and the block of %s", json.normalize(), GUARANTEES);
            return grew ? 1 : 0;
        }
        Options o = new Options(
                minutes, shortMode, queueRate, streamRate, lockThreads, 10, 0.25, 4, coldNames, interval, 3_000);
        RedisServer server = null;
        Redis redis;
        if (redisUri == null) {
            server = RedisServer.start();
            redis = new Redis(server.host(), server.port());
        } else {
            redis = Redis.parse(redisUri);
        }
        try {
            return run(o, redis, redisUri == null, note, out);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static int run(Options o, Redis redis, boolean fresh, String note, Path out) throws Exception {
        redis.flushAll();
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode doc = mapper.createObjectNode();
        ObjectNode run = doc.putObject("run");
        run.put(
                "date",
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
        run.put("mode", o.shortMode() ? "short" : "full");
        run.put("minutes", o.minutes());
        run.put("warmupSeconds", o.warmupSeconds());
        run.put("windowSeconds", o.windowSeconds());
        run.put("intervalSeconds", o.intervalSeconds());
        run.put("limitPercent", Flatness.LIMIT * 100);
        run.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        run.put("redis", redis.info("server", "redis_version"));
        run.put(
                "redisWhere",
                fresh ? "a fresh local redis-server started for the run (loopback, no persistence)" : "--redis");
        run.put("cores", Runtime.getRuntime().availableProcessors());
        run.put("clientJvms", 2);
        run.put("childHeap", "-Xmx256m");
        if (note != null) {
            run.put("note", note);
        }
        double queueRate = o.queueRate();
        if (queueRate <= 0) {
            double capacity = capacity(redis, o.capacityJobs());
            run.put("queueCapacity", Math.round(capacity));
            queueRate = capacity / 2;
            Progress.line(
                    "queue capacity %.0f jobs/s (2 workers × %d threads, %d ms handler): feeding %.0f jobs/s",
                    capacity, EnduranceWorker.QUEUE_CONCURRENCY, EnduranceWorker.JOB_HANDLER.toMillis(), queueRate);
            redis.flushAll();
        }
        run.put("queueRate", Math.round(queueRate));
        run.put("streamRate", o.streamRate());
        run.put("lockThreadsPerJvm", o.lockThreads());
        run.put("lockHoldMs", EnduranceWorker.HOLD.toMillis());
        run.put("lockPauseMs", o.lockPauseMs());
        run.put("hotShare", o.hotShare());
        run.put("hotNames", o.hotNames());
        run.put("coldNames", o.coldNames());
        run.put("jobHandlerMs", EnduranceWorker.JOB_HANDLER.toMillis());
        run.put("queueConcurrencyPerJvm", EnduranceWorker.QUEUE_CONCURRENCY);
        run.put("messageHandlerMs", EnduranceWorker.MESSAGE_HANDLER.toMillis());
        run.put("streamConcurrencyPerJvm", EnduranceWorker.STREAM_CONCURRENCY);
        run.put("streamMaxLen", EnduranceWorker.STREAM_MAX_LEN);
        run.put("doneMarkerTtlSeconds", o.doneTtlMillis() / 1000.0);
        prime(redis, o);
        ArrayNode samples = doc.putArray("samples");
        String start = "START lockThreads=" + o.lockThreads() + " lockPauseMs=" + o.lockPauseMs() + " hotShare="
                + o.hotShare() + " hotNames=" + o.hotNames() + " coldNames=" + o.coldNames() + " queueRate="
                + queueRate / 2 + " streamRate=" + o.streamRate() / 2 + " doneTtlMs=" + o.doneTtlMillis();
        Progress.line(
                "endurance: %s min (%s), warm-up %.0f s, windows %.0f s, 2 client JVMs, Redis %s",
                o.minutes(),
                run.get("mode").asText(),
                o.warmupSeconds(),
                o.windowSeconds(),
                run.get("redis").asText());
        try (Children children = Children.start(2, redis, out);
                Jedis j = redis.connection()) {
            children.sendAll(start);
            children.awaitAll("READY", Duration.ofSeconds(120));
            long t0 = System.nanoTime();
            long intervalNanos = TimeUnit.SECONDS.toNanos(o.intervalSeconds());
            long count = Math.round(o.seconds() / o.intervalSeconds());
            for (long k = 1; k <= count; k++) {
                LockRuns.sleepUntil(t0 + k * intervalNanos);
                double at = (System.nanoTime() - t0) / 1e9;
                children.sendAll("SAMPLE");
                List<String> replies = children.awaitAll("SAMPLE", Duration.ofSeconds(60));
                ObjectNode s = samples.addObject();
                s.put("t", Math.round(at * 10) / 10.0);
                redisSample(j, s);
                ArrayNode jvms = s.putArray("jvms");
                for (String reply : replies) {
                    ObjectNode jvm = jvms.addObject();
                    EnduranceWorker.parse(reply.split(" ")).forEach((key, v) -> jvm.put(key, Double.parseDouble(v)));
                }
                Progress.line(
                        "t=%5.0fs keys %d used_memory %.2f MB clients %d channels %d | heap %s MB threads %s pool %s"
                                + " | lock p99 %s ms, job p99 %s ms | errors %s",
                        at,
                        s.get("keys").asLong(),
                        s.get("usedMemory").asLong() / 1e6,
                        s.get("connectedClients").asLong(),
                        s.get("pubsubChannels").asLong(),
                        each(jvms, "heapAfterGc", 1e-6),
                        each(jvms, "threads", 1),
                        each(jvms, "poolActive", 1) + "+" + each(jvms, "poolIdle", 1),
                        each(jvms, "lockP99Ms", 1),
                        each(jvms, "jobP99Ms", 1),
                        each(jvms, "errors", 1));
            }
            children.sendAll("STOP");
            children.awaitAll("STOPPED", Duration.ofSeconds(120));
        }
        boolean grew = judgeInto(doc, true);
        Path json = out.resolve(JSON);
        Files.createDirectories(json.getParent());
        mapper.writeValue(json.toFile(), doc);
        JsonNode written = mapper.readTree(json.toFile());
        EnduranceReport.charts(written, out.resolve("docs"));
        EnduranceReport.writeBlock(out.resolve(GUARANTEES), written);
        Progress.line(
                "wrote %s, docs/endurance-*.png and the block of %s: %s",
                json.normalize(), GUARANTEES, grew ? "A CURVE GREW" : "every curve flat");
        return grew ? 1 : 0;
    }

    /**
     * Judges the samples of {@code doc} and writes the verdicts into it ({@code flatness}, {@code verdict}),
     * replacing any there; returns whether a curve grew.
     */
    static boolean judgeInto(ObjectNode doc, boolean print) {
        ArrayNode verdicts = doc.putArray("flatness");
        boolean grew = false;
        JsonNode run = doc.get("run");
        double runWarmup = run.get("warmupSeconds").asDouble();
        double window = run.get("windowSeconds").asDouble();
        double end = run.get("minutes").asDouble() * 60;
        List<Flatness.Verdict> fromRunWarmup = judge(doc, true);
        List<Flatness.Verdict> judged = judge(doc, false);
        for (int i = 0; i < judged.size(); i++) {
            Flatness.Verdict v = judged.get(i);
            double from = warmup(v.curve(), runWarmup, end, window);
            if (print) {
                Progress.line("%s%s", v.line(), from == runWarmup ? "" : "  (from " + (long) from + " s)");
            }
            ObjectNode n = verdicts.addObject();
            n.put("curve", v.curve());
            n.put("fromSeconds", from);
            if (from != runWarmup) { // what the run's own first window would say: recorded, not asserted
                Flatness.Verdict early = fromRunWarmup.get(i);
                if (print) {
                    Progress.line(
                            "%s  (from the run's warm-up, %d s: recorded, not asserted)",
                            early.line(), (long) runWarmup);
                }
                ObjectNode e = n.putObject("fromRunWarmup");
                e.put("first", early.first());
                e.put(
                        "growthPercent",
                        Double.isNaN(early.growth()) ? null : Math.round(early.growth() * 10_000) / 100.0);
            }
            n.put("first", v.first());
            n.put("firstSamples", v.firstSamples());
            n.put("last", v.last());
            n.put("lastSamples", v.lastSamples());
            if (Double.isNaN(v.growth())) {
                n.putNull("growthPercent");
            } else {
                n.put("growthPercent", Math.round(v.growth() * 10_000) / 100.0);
            }
            n.put("slack", v.slack());
            n.put("grew", v.grew());
            grew |= v.grew();
        }
        doc.put("verdict", grew ? "grew" : "flat");
        return grew;
    }

    /** The curves the run asserts flat. */
    static final List<String> ASSERTED = List.of(
            "redis.keys",
            "redis.usedMemory",
            "redis.connectedClients",
            "jvm1.heapAfterGc",
            "jvm2.heapAfterGc",
            "jvm1.threads",
            "jvm2.threads",
            "jvm1.poolConnections",
            "jvm2.poolConnections");

    /**
     * The absolute growth a curve is allowed besides the 5 %: one connection for the connection counts (a pool opens
     * a connection when a burst needs it and evicts it once idle for a minute, and one of 12 is already 8 %), none
     * for the rest.
     */
    static double slack(String curve) {
        return curve.endsWith("poolConnections") || curve.endsWith("connectedClients") ? 1 : 0;
    }

    /**
     * When the conflicts view's per-minute buckets (lock-retry-integration's {@code ContentionRecorder}: one zset
     * per strategy and minute, up to 1,000 names, kept 900 s after its minute's last write) have reached their
     * steady count: 900 s after the first minute's bucket was last written, at the end of that minute. Until
     * then each minute adds one, so Redis keys and {@code used_memory} grow for the first 16 minutes whatever
     * the library does besides.
     */
    static final double CONFLICT_BUCKETS_STEADY_SECONDS = 960;

    /** The curves the conflicts view's buckets feed: judged from {@link #CONFLICT_BUCKETS_STEADY_SECONDS} on. */
    static final List<String> FED_BY_CONFLICT_BUCKETS = List.of("redis.keys", "redis.usedMemory");

    /**
     * Where {@code curve}'s first window starts: after the run's warm-up, and for the curves the conflicts view's
     * buckets feed, not before those reached their steady count, when the run is long enough for that window
     * not to overlap the last one (a short run keeps the run's warm-up).
     */
    static double warmup(String curve, double runWarmup, double end, double window) {
        if (FED_BY_CONFLICT_BUCKETS.contains(curve) && CONFLICT_BUCKETS_STEADY_SECONDS + window <= end - window) {
            return Math.max(runWarmup, CONFLICT_BUCKETS_STEADY_SECONDS);
        }
        return runWarmup;
    }

    /** The flatness verdict on every asserted curve of a run's document. */
    static List<Flatness.Verdict> judge(JsonNode doc) {
        return judge(doc, false);
    }

    /**
     * The flatness verdicts of a run's document; with {@code runWarmupOnly}, every curve judged from the run's
     * warm-up (recorded for the curves whose first window starts later, not asserted).
     */
    static List<Flatness.Verdict> judge(JsonNode doc, boolean runWarmupOnly) {
        JsonNode run = doc.get("run");
        double warmup = run.get("warmupSeconds").asDouble();
        double window = run.get("windowSeconds").asDouble();
        double end = run.get("minutes").asDouble() * 60;
        List<Flatness.Verdict> out = new ArrayList<>();
        for (String curve : ASSERTED) {
            double from = runWarmupOnly ? warmup : warmup(curve, warmup, end, window);
            out.add(Flatness.check(curve, curve(doc, curve), from, end, window, Flatness.LIMIT, slack(curve)));
        }
        return out;
    }

    /** The samples of one curve: {@code redis.<field>} or {@code jvm<n>.<field>} ({@code poolConnections}: active + idle). */
    static List<Flatness.Point> curve(JsonNode doc, String curve) {
        List<Flatness.Point> points = new ArrayList<>();
        String field = curve.substring(curve.indexOf('.') + 1);
        for (JsonNode s : doc.get("samples")) {
            JsonNode where = curve.startsWith("redis.")
                    ? s
                    : s.get("jvms").get(Integer.parseInt(curve.substring(3, curve.indexOf('.'))) - 1);
            double v = field.equals("poolConnections")
                    ? where.get("poolActive").asDouble() + where.get("poolIdle").asDouble()
                    : where.get(field).asDouble();
            points.add(new Flatness.Point(s.get("t").asDouble(), v));
        }
        return points;
    }

    private static String each(ArrayNode jvms, String field, double scale) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode j : jvms) {
            double v = j.get(field).asDouble() * scale;
            sb.append(sb.length() == 0 ? "" : "/")
                    .append(
                            v == Math.rint(v)
                                    ? String.valueOf((long) v)
                                    : String.format(java.util.Locale.ROOT, "%.1f", v));
        }
        return sb.toString();
    }

    private static void redisSample(Jedis j, ObjectNode s) {
        s.put("keys", j.dbSize());
        s.put("usedMemory", Long.parseLong(Redis.parseInfo(j.info("memory")).get("used_memory")));
        s.put(
                "connectedClients",
                Long.parseLong(Redis.parseInfo(j.info("clients")).get("connected_clients")));
        s.put("clientList", j.clientList().split("\n").length);
        s.put("pubsubChannels", j.pubsubChannels().size());
        s.put("pubsubPatterns", j.pubsubNumPat());
        try {
            s.put("pubsubShardChannels", j.pubsubShardChannels().size());
        } catch (RuntimeException e) {
            s.putNull("pubsubShardChannels"); // before Redis 7.0
        }
    }

    /**
     * Every lock name the run will use, locked and released once before the load starts: a name's fencing counter
     * is permanent (docs/lock-keys.md), so without this the key count would rise until every cold name had been
     * drawn once, which is the design, not a leak.
     */
    private static void prime(Redis redis, Options o) {
        try (RedisClient client = redis.jedis();
                RedisLocks locks = RedisLocks.builder(client)
                        .keyPrefix(EnduranceWorker.PREFIX)
                        .build()) {
            for (int i = 0; i < o.hotNames(); i++) {
                locks.get(EnduranceWorker.hot(i)).acquire(Duration.ZERO).close();
            }
            for (int i = 0; i < o.coldNames(); i++) {
                locks.get(EnduranceWorker.cold(i, o.coldNames()))
                        .acquire(Duration.ZERO)
                        .close();
            }
        }
    }

    /**
     * The queue's capacity, jobs/s: {@code jobs} jobs enqueued up front, drained by two workers of the client JVMs'
     * shape ({@link EnduranceWorker#QUEUE_CONCURRENCY} threads, {@link EnduranceWorker#JOB_HANDLER} handler) in
     * this process, each on its own client; jobs ÷ seconds from the workers' start to the last job's start.
     */
    static double capacity(Redis redis, int jobs) throws InterruptedException {
        String name = "endurance-capacity";
        try (RedisClient a = redis.jedis();
                RedisClient b = redis.jedis()) {
            DelayQueue<String> qa = DelayQueue.builder(a, name, String.class).build();
            DelayQueue<String> qb = DelayQueue.builder(b, name, String.class).build();
            List<String> payloads = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                payloads.add("0");
            }
            for (int i = 0; i < jobs; i += 500) {
                qa.enqueueAll(payloads.subList(i, Math.min(jobs, i + 500)), Duration.ZERO);
            }
            AtomicLong started = new AtomicLong();
            AtomicLong last = new AtomicLong();
            io.github.deferlock.delay.JobHandler<String> handler = job -> {
                started.incrementAndGet();
                last.set(System.nanoTime());
                Thread.sleep(EnduranceWorker.JOB_HANDLER.toMillis());
            };
            long t0 = System.nanoTime();
            DelayQueueWorker<String> wa = DelayQueueWorker.builder(qa, handler)
                    .concurrency(EnduranceWorker.QUEUE_CONCURRENCY)
                    .build()
                    .start();
            DelayQueueWorker<String> wb = DelayQueueWorker.builder(qb, handler)
                    .concurrency(EnduranceWorker.QUEUE_CONCURRENCY)
                    .build()
                    .start();
            try {
                long deadline = t0 + TimeUnit.MINUTES.toNanos(2);
                while (started.get() < jobs && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            } finally {
                wa.close();
                wb.close();
            }
            if (started.get() < jobs) {
                throw new IllegalStateException(
                        "capacity: only " + started.get() + " of " + jobs + " jobs started within 2 minutes");
            }
            return jobs / ((last.get() - t0) / 1e9);
        }
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }

    /** The client JVMs, each an {@link EnduranceWorker}; stderr goes to benchmarks/target/endurance-jvm<n>.log. */
    static final class Children implements AutoCloseable {
        private final List<Process> procs = new ArrayList<>();
        private final List<Writer> stdin = new ArrayList<>();
        private final List<LinkedBlockingQueue<String>> lines = new ArrayList<>();

        static Children start(int n, Redis redis, Path out) throws IOException {
            Children c = new Children();
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Path logs = out.resolve("benchmarks/target");
            Files.createDirectories(logs);
            for (int i = 1; i <= n; i++) {
                Process p = new ProcessBuilder(
                                java,
                                "-Xmx256m",
                                "-D" + Bench.LOG_LEVEL + "=warn",
                                "-cp",
                                System.getProperty("java.class.path"),
                                EnduranceWorker.class.getName(),
                                redis.uri(),
                                String.valueOf(i))
                        .redirectError(
                                logs.resolve("endurance-jvm" + i + ".log").toFile())
                        .start();
                LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> {
                    try (BufferedReader r =
                            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            q.add(l);
                        }
                    } catch (IOException e) {
                        q.add("FAILED " + e);
                    }
                    q.add("FAILED exited");
                });
                reader.setDaemon(true);
                reader.start();
                c.procs.add(p);
                c.stdin.add(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
                c.lines.add(q);
            }
            return c;
        }

        void sendAll(String line) throws IOException {
            for (Writer w : stdin) {
                w.write(line + "\n");
                w.flush();
            }
        }

        /** Waits for a line starting with {@code prefix} from every child; returns those lines. */
        List<String> awaitAll(String prefix, Duration timeout) throws InterruptedException {
            List<String> out = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < lines.size(); i++) {
                while (true) {
                    String l = lines.get(i).poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (l == null) {
                        throw new IllegalStateException(
                                "client JVM " + (i + 1) + ": no " + prefix + " within " + timeout);
                    }
                    if (l.startsWith(prefix)) {
                        out.add(l);
                        break;
                    }
                    if (l.startsWith("FAILED")) {
                        throw new IllegalStateException("client JVM " + (i + 1) + ": " + l
                                + " (see benchmarks/target/endurance-jvm" + (i + 1) + ".log)");
                    }
                }
            }
            return out;
        }

        @Override
        public void close() {
            try {
                sendAll("EXIT");
            } catch (IOException e) {
                // already gone
            }
            for (Process p : procs) {
                try {
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
