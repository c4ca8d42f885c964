package io.github.deferlock.demo;

import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.testing.RedisServer;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The deferlock demo: a stream of order events, a share of them on a few hot orders, processed by worker
 * threads under a per-order Redis lock — once per conflict strategy — with a table per strategy. Starts a
 * local redis-server unless {@code --redis} is given. {@code --help} lists the options; bad options exit 2.
 */
public final class Demo {

    private Demo() {}

    /** Runs the demo and exits with its status: 0 ok, 1 a check failed, 2 bad options. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("run-demo: " + e.getMessage());
            err.println("try ./run-demo --help");
            return 2;
        }
        if (options.help()) {
            out.print(Options.USAGE);
            return 0;
        }
        RedisServer server = null;
        try {
            String uri = options.redisUri();
            if (uri == null) {
                server = RedisServer.start();
                uri = server.uri();
            }
            try (UnifiedJedis redis = RedisClient.create(uri);
                    Brokers brokers = Brokers.forSource(options.source())) {
                String version = infoField(redis.info("server"), "redis_version");
                out.printf(
                        "deferlock demo: redis-server %s at %s%s%n",
                        version, uri, server == null ? "" : " (started for this run)");
                if (brokers.describe() != null) {
                    out.printf("source: %s (started for this run)%n", brokers.describe());
                }
                out.printf(
                        "%d events over %d orders (%d hot, %.0f%% of events), %d workers, %d ms of work per event, %d events/s%n%n",
                        options.events(),
                        options.orders(),
                        options.hotOrders(),
                        options.hotShare() * 100,
                        options.workers(),
                        options.handleMillis(),
                        options.rate());
                List<Workload.Report> reports = new ArrayList<>();
                String runId = Long.toString(System.currentTimeMillis(), 36);
                for (OnConflict s : options.strategies()) {
                    out.println("running " + s + " ...");
                    reports.add(new Workload(redis, brokers, options, s, out, runId).run());
                }
                out.println();
                printTable(out, reports);
                boolean ok = reports.stream()
                        .allMatch(r -> r.duplicates() == 0
                                && r.lost() == 0
                                && r.lostUpdates() == 0
                                && r.processed() == r.events());
                out.println();
                out.println(
                        ok
                                ? "OK: every event processed exactly once, no order lost an update."
                                : "FAILED: see the duplicates / lost / lost updates rows above.");
                return ok ? 0 : 1;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("run-demo: interrupted");
            return 1;
        } catch (RuntimeException e) {
            err.println("run-demo: " + e);
            return 1;
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    static void printTable(PrintStream out, List<Workload.Report> reports) {
        List<String[]> rows = new ArrayList<>();
        rows.add(row("", reports, r -> r.strategy().name()));
        rows.add(row("events processed", reports, r -> r.processed() + "/" + r.events()));
        rows.add(row("conflicts", reports, r -> Long.toString(r.conflicts())));
        rows.add(row("retries (sleeps)", reports, r -> Long.toString(r.retries())));
        rows.add(row("deferrals", reports, r -> Long.toString(r.deferrals())));
        rows.add(row("dead letters", reports, r -> Long.toString(r.deadLetters())));
        rows.add(row("duplicates (must be 0)", reports, r -> Long.toString(r.duplicates())));
        rows.add(row("lost (must be 0)", reports, r -> Long.toString(r.lost())));
        rows.add(row("lost updates (must be 0)", reports, r -> Long.toString(r.lostUpdates())));
        rows.add(row("throughput (events/s)", reports, r -> String.format(Locale.ROOT, "%.0f", r.throughput())));
        rows.add(row("latency p50 (ms)", reports, r -> String.format(Locale.ROOT, "%.1f", r.p50Millis())));
        rows.add(row("latency p99 (ms)", reports, r -> String.format(Locale.ROOT, "%.1f", r.p99Millis())));
        rows.add(row(
                "worker time asleep (ms)", reports, r -> Long.toString(r.slept().toMillis())));
        rows.add(row(
                "wall time (s)",
                reports,
                r -> String.format(Locale.ROOT, "%.1f", r.elapsed().toMillis() / 1000.0)));
        int[] widths = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        for (int n = 0; n < rows.size(); n++) {
            String[] r = rows.get(n);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                sb.append(
                        i == 0
                                ? String.format("%-" + widths[i] + "s", r[i])
                                : String.format("  %" + widths[i] + "s", r[i]));
            }
            out.println(sb);
            if (n == 0) {
                out.println("-".repeat(sb.length()));
            }
        }
    }

    private static String[] row(
            String label, List<Workload.Report> reports, java.util.function.Function<Workload.Report, String> cell) {
        String[] r = new String[reports.size() + 1];
        r[0] = label;
        for (int i = 0; i < reports.size(); i++) {
            r[i + 1] = cell.apply(reports.get(i));
        }
        return r;
    }

    private static String infoField(String info, String field) {
        return info.lines()
                .filter(l -> l.startsWith(field + ":"))
                .map(l -> l.substring(field.length() + 1).trim())
                .findFirst()
                .orElse("unknown");
    }
}
