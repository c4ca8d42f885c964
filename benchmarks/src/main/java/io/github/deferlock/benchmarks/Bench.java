package io.github.deferlock.benchmarks;

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
 * Runs the side-by-side benchmarks of issue 6 and writes {@code benchmarks/results.json} and {@code
 * docs/benchmarks.md}.
 *
 * <pre>
 * ./bench [--quick] [--redis redis://host:port] [--only PREFIX] [--out DIR] [--note TEXT] [--render-only]
 * </pre>
 *
 * <ul>
 *   <li>{@code --quick}: the same metric ids, shorter runs (under three minutes);
 *   <li>{@code --redis}: use that server instead of starting a fresh local redis-server (it is flushed);
 *   <li>{@code --only}: run only the metric ids starting with PREFIX; the others keep the figures of the
 *       results.json already in {@code --out};
 *   <li>{@code --out}: the project root the two files are written under (default: the working directory);
 *   <li>{@code --note}: a remark on the machine, printed in the report's header;
 *   <li>{@code --render-only}: rewrite docs/benchmarks.md from the results.json of the last run (e.g. after
 *       editing the explanations in {@code limits.md}), measuring nothing.
 * </ul>
 *
 * Progress goes to stderr, one line per figure.
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
    private record Group(String name, List<String> ids, Task task) {}

    @FunctionalInterface
    private interface Task {
        void run() throws Exception;
    }

    /**
     * Runs the benchmarks and returns the exit status: 0 when every group ran, 1 when one failed (its ids are
     * written with a null figure).
     */
    static int run(String[] args) {
        if (System.getProperty(LOG_LEVEL) == null) {
            System.setProperty(LOG_LEVEL, "warn");
        }
        // Redisson logs an ERROR each time an RDelayedQueue is created (deprecated); the report says so once.
        System.setProperty("org.slf4j.simpleLogger.log.org.redisson.Redisson", "off");
        Settings settings = Settings.full();
        String redisUri = null;
        String only = null;
        String note = null;
        Path out = Path.of(".");
        boolean renderOnly = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> settings = Settings.quick();
                case "--tiny" -> settings = Settings.tiny();
                case "--redis" -> redisUri = value(args, ++i, "--redis");
                case "--only" -> only = value(args, ++i, "--only");
                case "--out" -> out = Path.of(value(args, ++i, "--out"));
                case "--note" -> note = value(args, ++i, "--note");
                case "--render-only" -> renderOnly = true;
                case "-h", "--help" -> {
                    System.err.println("usage: ./bench [--quick] [--redis redis://host:port] [--only PREFIX]"
                            + " [--out DIR] [--note TEXT] [--render-only]");
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (try --help)");
            }
        }
        Path json = out.resolve("benchmarks/results.json");
        Path md = out.resolve("docs/benchmarks.md");
        Path context = out.resolve("benchmarks/target/last-run-context.json");
        if (renderOnly) {
            Report.write(md, Report.Context.load(context), Results.read(json));
            Progress.line("wrote %s from %s", md.normalize(), json.normalize());
            return 0;
        }
        String prefix = only;
        if (prefix != null && Metrics.ALL.stream().noneMatch(m -> m.id().startsWith(prefix))) {
            throw new IllegalArgumentException("no metric id starts with " + prefix);
        }
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
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
        try {
            redis.flushAll();
            String version = redis.info("server", "redis_version");
            Progress.line(
                    "deferlock benchmarks (%s) against Redis %s at %s, %d cores",
                    settings.mode(), version, redis.uri(), Runtime.getRuntime().availableProcessors());
            Results fresh = new Results();
            boolean ok = true;
            for (Group g : groups(redis, settings, fresh)) {
                if (prefix != null && g.ids().stream().noneMatch(id -> id.startsWith(prefix))) {
                    continue;
                }
                Progress.line("== %s", g.name());
                redis.flushAll();
                try {
                    g.task().run();
                } catch (Exception | AssertionError e) {
                    ok = false;
                    Progress.line("!! %s failed: %s", g.name(), e);
                    e.printStackTrace();
                    for (String id : g.ids()) {
                        fresh.note(id, "error", String.valueOf(e));
                    }
                }
            }
            Results all = prefix == null ? new Results() : Results.read(json);
            all.overlay(fresh);
            all.write(json);
            Report.Context ctx = new Report.Context(
                    date,
                    settings.mode(),
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                    version,
                    where,
                    Runtime.getRuntime().availableProcessors(),
                    cpuModel(),
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    note,
                    prefix);
            Report.write(md, ctx, all);
            ctx.save(context);
            Progress.line("wrote %s and %s", json.normalize(), md.normalize());
            for (Metric m : Metrics.ALL) {
                String v = Report.verdict(m, all.get(m.id()));
                if (!v.equals("met") && !v.equals("reported")) {
                    Progress.line("%-36s %s", m.id(), v.replace("**", ""));
                }
            }
            return ok ? 0 : 1;
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static List<Group> groups(Redis redis, Settings s, Results r) {
        LockBenchmarks lock = new LockBenchmarks(redis, s, r);
        QueueBenchmarks queue = new QueueBenchmarks(redis, s, r);
        ConflictBenchmarks conflict = new ConflictBenchmarks(redis, s, r);
        List<Group> g = new ArrayList<>();
        g.add(new Group("uncontended lock cycle, 1 thread", List.of("lock.uncontended.t1"), () -> lock.uncontended(1)));
        g.add(new Group(
                "uncontended lock cycle, 8 threads", List.of("lock.uncontended.t8"), () -> lock.uncontended(8)));
        g.add(new Group(
                "contended lock, one JVM",
                List.of("lock.contended.hold1ms.throughput", "lock.contended.hold1ms.p99wait"),
                lock::contendedOneJvm));
        g.add(new Group(
                "contended lock, two JVMs",
                List.of("lock.contended.2jvm.throughput", "lock.contended.2jvm.p99wait"),
                lock::contendedTwoJvms));
        g.add(new Group("enqueue", List.of("queue.enqueue.t1", "queue.enqueue.batch"), queue::enqueue));
        g.add(new Group("queue drain, 8 workers", List.of("queue.throughput.t8"), queue::throughput));
        g.add(new Group(
                "queue lateness",
                List.of("queue.lateness.p50", "queue.lateness.p99", "queue.lateness.max", "queue.early"),
                queue::lateness));
        g.add(new Group("idle worker", List.of("queue.idle.commandsPerSec"), queue::idle));
        g.add(new Group("memory per pending job", List.of("queue.memory.bytesPerJob"), queue::memory));
        g.add(new Group(
                "hot-key conflict strategies",
                List.of("conflict.defer.coldThroughputRatio", "conflict.defer.hotCompletion.p99"),
                conflict::run));
        return g;
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
