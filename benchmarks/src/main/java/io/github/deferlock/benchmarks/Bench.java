package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the side-by-side benchmarks of issue 19 and writes {@code benchmarks/results.json}, {@code
 * docs/benchmarks.md} and the charts of the {@code curve.*} ids (issue 30) in {@code docs/charts/}.
 *
 * <pre>
 * ./bench [--quick | --smoke] [--rounds N] [--redis redis://host:port] [--only PREFIX] [--out DIR]
 *         [--note TEXT] [--render-only] [--baseline-jars JARS --baseline-rev TEXT]
 * </pre>
 *
 * <ul>
 *   <li>{@code --quick}: the same metric ids, one short round (under three minutes);
 *   <li>{@code --smoke}: the same ids in about a minute, to prove the harness works (figures mean nothing);
 *   <li>{@code --rounds}: override the rounds per side (full mode: 5);
 *   <li>{@code --redis}: use that server instead of starting a fresh local redis-server (it is flushed);
 *   <li>{@code --only}: run only the groups with a metric or curve id starting with PREFIX ({@code --only curve}: every
 *       curve); the other ids keep the
 *       figures of the results.json already in {@code --out};
 *   <li>{@code --out}: the project root the two files are written under (default: the working directory);
 *   <li>{@code --note}: a remark on the machine, printed in the report's header;
 *   <li>{@code --render-only}: rewrite docs/benchmarks.md from results.json, measuring nothing;
 *   <li>{@code --baseline-jars}: an older build's delay-core and redis-support jars (path-separated), which
 *       {@code queue.featureCost.*} measures this build against ({@link FeatureCostRuns}); {@code ./bench
 *       --compare-with REV} builds them and passes them with {@code --baseline-rev}, what REV is.
 * </ul>
 *
 * Progress goes to stderr, one line per side and round.
 */
public final class Bench {

    /** The slf4j-simple level property; the run sets it to warn unless given. */
    static final String LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private Bench() {}

    /** Runs the benchmarks; see the class comment for the arguments. */
    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage());
            code = 2;
        }
        System.exit(code);
    }

    /** A group of metric ids measured together. */
    private record Group(String name, String prefix, Task task) {}

    @FunctionalInterface
    private interface Task {
        void run() throws Exception;
    }

    /** Runs the benchmarks and returns the exit status: 0 when every group ran, 1 when one failed. */
    static int run(String[] args) throws IllegalArgumentException {
        if (System.getProperty(LOG_LEVEL) == null) {
            System.setProperty(LOG_LEVEL, "warn");
        }
        System.setProperty("org.slf4j.simpleLogger.log.org.redisson.Redisson", "off");
        // the in-process Kafka broker of adapter.kafka.* logs its routine start and stop at WARN
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        Settings settings = Settings.full();
        Integer rounds = null;
        String redisUri = null;
        String only = null;
        String note = null;
        Path out = Path.of(".");
        boolean renderOnly = false;
        List<Path> baselineJars = null;
        String baselineRev = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> settings = Settings.quick();
                case "--smoke", "--tiny" -> settings = Settings.smoke();
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                case "--redis" -> redisUri = value(args, ++i, "--redis");
                case "--only" -> only = value(args, ++i, "--only");
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--note" -> note = value(args, ++i, "--note");
                case "--render-only" -> renderOnly = true;
                case "--baseline-jars" ->
                    baselineJars = java.util.Arrays.stream(
                                    value(args, ++i, "--baseline-jars").split(java.io.File.pathSeparator))
                            .map(Path::of)
                            .toList();
                case "--baseline-rev" -> baselineRev = value(args, ++i, "--baseline-rev");
                case "-h", "--help" -> {
                    System.err.println("usage: ./bench [--quick | --smoke] [--rounds N] [--redis redis://host:port]"
                            + " [--only PREFIX] [--out DIR] [--note TEXT] [--render-only] [--compare-with GIT-REV]");
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (try --help)");
            }
        }
        if (rounds != null) {
            Settings s = settings;
            settings = new Settings(
                    s.mode(),
                    rounds,
                    s.warmup(),
                    s.measure(),
                    s.contended(),
                    s.openLoop(),
                    s.drainJobs(),
                    s.latenessWindow(),
                    s.latenessDelay(),
                    s.idleWindow(),
                    s.memoryJobs(),
                    s.faultJobs(),
                    s.visibility(),
                    s.conflictWindow(),
                    s.benchmarkRequests(),
                    s.adapterMessages());
        }
        if (baselineJars != null) {
            for (Path jar : baselineJars) {
                if (!Files.isRegularFile(jar)) {
                    throw new IllegalArgumentException("--baseline-jars: no file " + jar);
                }
            }
            if (baselineRev == null) {
                baselineRev = String.valueOf(baselineJars);
            }
        }
        Path json = out.resolve("benchmarks/results.json");
        Path md = out.resolve("docs/benchmarks.md");
        if (Files.isDirectory(out.resolve("benchmarks/node"))) {
            BullMq.dir = out.resolve("benchmarks/node");
        }
        if (renderOnly) {
            if (!Results.isCurrentSchema(json)) {
                throw new IllegalArgumentException(
                        json + " is not of schema " + Results.SCHEMA + "; run the benchmarks");
            }
            Results committed = Results.read(json);
            // Judged again with today's targets: the measured values are kept as they are.
            committed.write(json);
            Report.write(md, committed);
            Report.writeReadme(out.resolve("README.md"), committed);
            Progress.line("wrote %s and the README's summary from %s", md.normalize(), json.normalize());
            return 0;
        }
        String prefix = only;
        if (prefix != null && ids().stream().noneMatch(id -> id.startsWith(prefix))) {
            throw new IllegalArgumentException("no metric id starts with " + prefix);
        }
        RedisServer server = null;
        Redis redis;
        String where;
        if (redisUri == null) {
            server = RedisServer.start();
            redis = new Redis(server.host(), server.port());
            where = "a fresh local redis-server started for this run (loopback, `save \"\"`, no AOF)";
        } else {
            redis = Redis.parse(redisUri);
            where = "the server given with `--redis` (flushed before each group)";
        }
        long started = System.nanoTime();
        try {
            redis.flushAll();
            Results fresh = new Results();
            ObjectNode run = fresh.run();
            run.put(
                    "date",
                    ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
            run.put("mode", settings.mode());
            run.put("rounds", settings.rounds());
            run.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
            run.put("redis", redis.info("server", "redis_version"));
            run.put("redisWhere", where);
            run.put("cores", Runtime.getRuntime().availableProcessors());
            run.put("cpu", cpuModel());
            run.put(
                    "os",
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"));
            run.put(
                    "redisson",
                    java.util.Objects.requireNonNullElse(
                            org.redisson.Redisson.class.getPackage().getImplementationVersion(), "see pom.xml"));
            run.put("bullmq", BullMq.unavailable() == null ? BullMq.version() : BullMq.unavailable());
            if (note != null) {
                run.put("note", note);
            }
            if (prefix != null) {
                run.put("only", prefix);
            }
            Progress.line(
                    "deferlock benchmarks v2 (%s, %d round(s)) against Redis %s at %s, %d cores",
                    settings.mode(),
                    settings.rounds(),
                    run.get("redis").asText(),
                    redis.uri(),
                    Runtime.getRuntime().availableProcessors());
            Noise.sample(redis, run.putObject("noiseStart"));
            Progress.line("noise at start: %s", run.get("noiseStart"));
            boolean ok = true;
            Noise.During during = new Noise.During(run.putObject("noiseDuring"), java.time.Duration.ofSeconds(5));
            List<Group> groups = groups(
                    redis,
                    settings,
                    fresh,
                    prefix == null ? null : Results.read(json),
                    new FeatureCostRuns(redis, settings, fresh, baselineJars, baselineRev));
            List<String> prefixes = groups.stream().map(Group::prefix).toList();
            for (Group g : groups) {
                if (prefix != null
                        && ids().stream()
                                .noneMatch(id ->
                                        id.startsWith(prefix) && g.prefix().equals(owner(id, prefixes)))) {
                    continue;
                }
                Progress.line("== %s", g.name());
                redis.flushAll();
                Rounds.takeFailures();
                String groupError = null;
                try {
                    g.task().run();
                } catch (Exception | AssertionError e) {
                    ok = false;
                    groupError = "failed: " + e;
                    Progress.line("!! %s failed: %s", g.name(), e);
                    e.printStackTrace();
                }
                java.util.Map<String, String> failed = Rounds.takeFailures();
                for (Curve c : Curves.ALL) {
                    if (!g.prefix().equals(owner(c.id(), prefixes))) {
                        continue;
                    }
                    for (String side : c.sides()) {
                        String why = failed.getOrDefault(side, groupError);
                        if (why == null) {
                            continue;
                        }
                        if (!fresh.curve(c.id()).containsKey(side)) {
                            fresh.curveUnavailable(c.id(), side, why.replace('\n', ' '));
                        } else {
                            // the points it drew before it failed are kept; the page says where it stopped
                            fresh.note(c.id(), side, "stopped after its last point: " + why.replace('\n', ' '));
                        }
                    }
                }
                for (Metric m : Metrics.ALL) {
                    if (!g.prefix().equals(owner(m.id(), prefixes))) {
                        continue;
                    }
                    for (String side : m.sides()) {
                        Results.Side got = fresh.side(m.id(), side);
                        String why = failed.getOrDefault(side, groupError);
                        if (why != null && (got == null || got.values().isEmpty())) {
                            fresh.unavailable(m.id(), side, why.replace('\n', ' '));
                        }
                    }
                }
            }
            during.close();
            Progress.line("noise during the run: %s", run.get("noiseDuring"));
            Noise.sample(redis, run.putObject("noiseEnd"));
            Progress.line("noise at end: %s", run.get("noiseEnd"));
            run.put("seconds", Math.round((System.nanoTime() - started) / 1e9));
            String noisy = Noise.verdict(
                    (ObjectNode) run.get("noiseStart"),
                    (ObjectNode) run.get("noiseEnd"),
                    (ObjectNode) run.get("noiseDuring"),
                    Runtime.getRuntime().availableProcessors());
            if (noisy != null) {
                run.put("noisy", noisy);
                Progress.line("WARNING: the machine was noisy (%s); treat every figure with care", noisy);
            }
            Results all = prefix == null ? new Results() : Results.read(json);
            all.overlay(fresh);
            all.write(json);
            // the page and the README come from results.json as written (its values rounded), so that
            // --render-only and ReadmeFiguresTest render the very same text
            all = Results.read(json);
            Report.write(md, all);
            Report.writeReadme(out.resolve("README.md"), all);
            Progress.line(
                    "wrote %s and %s in %d s",
                    json.normalize(), md.normalize(), run.get("seconds").asLong());
            for (Metric m : Metrics.ALL) {
                Verdict v = Verdict.overall(m, all);
                if (v != Verdict.MET && v != Verdict.REPORTED) {
                    Progress.line("%-40s %s", m.id(), v.label());
                }
            }
            return ok ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static List<Group> groups(Redis redis, Settings s, Results r, Results prior, FeatureCostRuns featureCost) {
        LockRuns lock = new LockRuns(redis, s, r);
        lock.prior = prior;
        QueueRuns queue = new QueueRuns(redis, s, r);
        FaultRuns fault = new FaultRuns(redis, s, r);
        ConflictRuns conflict = new ConflictRuns(redis, s, r);
        AdapterRuns adapter = new AdapterRuns(redis, s, r);
        KeyLimitRuns keyLimits = new KeyLimitRuns(redis, s, r);
        ScheduleRuns schedules = new ScheduleRuns(redis, s, r);
        CurveRuns curves = new CurveRuns(redis, s, r);
        List<Group> g = new ArrayList<>();
        g.add(new Group("physical limits (redis-benchmark)", "limits.", () -> {
            for (int i = 1; i <= s.rounds(); i++) {
                Limits.run(redis, s.benchmarkRequests(), r);
            }
        }));
        g.add(new Group("permits, 8 threads on one name with 4 permits", "limits.permits.", keyLimits::permits));
        g.add(new Group("rate limiter accuracy and throughput", "limits.rate.", keyLimits::rate));
        g.add(new Group("uncontended lock, 1 thread", "lock.uncontended.t1", () -> lock.uncontended(1)));
        g.add(new Group("uncontended lock, 8 threads", "lock.uncontended.t8", () -> lock.uncontended(8)));
        g.add(new Group("contended lock, 1 JVM × 8 threads", "lock.contended.1jvm", lock::contendedOneJvm));
        g.add(new Group("contended lock, N JVMs × 1 thread", "lock.contended.", lock::contendedJvms));
        g.add(new Group("open-loop acquire", "lock.openloop.", lock::openLoop));
        g.add(new Group("enqueue", "queue.enqueue.", queue::enqueue));
        g.add(new Group("drain at concurrency 8", "queue.drain.", queue::drain));
        g.add(new Group(
                "drain at concurrency 8 with limits not reached", "queue.drain.t8.limited", queue::drainLimited));
        g.add(new Group("open-loop enqueue", "queue.openloop.", queue::openLoop));
        g.add(new Group("lateness", "queue.lateness.", queue::lateness));
        g.add(new Group("lateness at hz 100", "queue.lateness.hz100.", queue::latenessAtHz100));
        g.add(new Group("idle cost", "queue.idle.", queue::idle));
        g.add(new Group("memory per pending job", "queue.memory.", queue::memory));
        g.add(new Group("replay records after a full drain", "queue.replay.", queue::replay));
        g.add(new Group("claim with priorities at 10^6 pending", "queue.priority.", queue::priority));
        g.add(new Group("10,000 schedules firing every second", "queue.schedule.", schedules::fireLateness));
        g.add(new Group(
                "issue 31's features unused: this build against the baseline build",
                FeatureCostRuns.PREFIX,
                featureCost::run));
        g.add(new Group("SIGKILL of a worker", "queue.fault.", fault::sigkill));
        g.add(new Group("slow handler", "queue.slowHandler.", fault::slowHandler));
        g.add(new Group("hot-key conflict strategies", "conflict.", conflict::run));
        g.add(new Group("RabbitMQ adapter, 10% hot keys", AdapterRuns.id("rabbitmq"), adapter::rabbitmq));
        g.add(new Group("Kafka adapter, 10% hot keys", AdapterRuns.id("kafka"), adapter::kafka));
        g.add(new Group("Redis Streams adapter, 10% hot keys", AdapterRuns.id("streams"), adapter::streams));
        g.add(new Group("curve: lock cycles vs threads", "curve.lock.threads.", curves::lockThreads));
        g.add(new Group("curve: contended lock vs JVMs", "curve.lock.jvms.", curves::lockJvms));
        g.add(new Group("curve: lock cycles vs distinct names", "curve.lock.names.", curves::lockNames));
        g.add(new Group("curve: acquire latency vs offered load", "curve.lock.load.", curves::lockLoad));
        g.add(new Group("curve: add and drain vs payload size", "curve.queue.payload.", curves::queuePayload));
        g.add(new Group("curve: add and drain vs pending jobs", "curve.queue.depth.", curves::queueDepth));
        g.add(new Group("curve: add latency vs offered load", "curve.queue.load.", curves::queueLoad));
        return g;
    }

    /** Every metric and curve id, the ids {@code --only} selects from. */
    static List<String> ids() {
        List<String> ids = new ArrayList<>();
        Metrics.ALL.forEach(m -> ids.add(m.id()));
        Curves.ALL.forEach(c -> ids.add(c.id()));
        return ids;
    }

    /**
     * The group prefix that measures {@code id}: the longest of {@code prefixes} it starts with (so {@code
     * limits.permits.t8} belongs to {@code limits.permits.}, not to the redis-benchmark group {@code limits.}), or
     * null. {@code --only P} runs the groups that own at least one id starting with P.
     */
    static String owner(String id, List<String> prefixes) {
        String best = null;
        for (String p : prefixes) {
            if (id.startsWith(p) && (best == null || p.length() > best.length())) {
                best = p;
            }
        }
        return best;
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.toLowerCase(Locale.ROOT).startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }
}
