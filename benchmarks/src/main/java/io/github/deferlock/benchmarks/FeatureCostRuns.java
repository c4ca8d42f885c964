package io.github.deferlock.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code queue.featureCost.*} (issue 31, "jobs that use none of these features must not pay for them"): the
 * deferlock side of {@code queue.enqueue.t1}, {@code queue.drain.t8} and {@code queue.memory.bytesPerJob} on this
 * build against the same on an older build, in the same run and the same rounds. Each round starts one child JVM
 * per build, in a fresh random order, against the same redis-server: {@link FeatureCostProbe} on this build's class
 * path, and on the same class path with the old build's delay-core and redis-support jars in front (the {@link
 * #BASELINE} side). The harness code is the same on both sides; only the library under test differs. Each child
 * reports which delay-core jar it ran on, and a child that ran on the wrong one fails the round.
 *
 * <p>{@code ./bench --compare-with REV} builds REV's jars in a temporary git worktree and passes them here with
 * {@code --baseline-jars} and {@code --baseline-rev}; without them the ids are recorded as not measured.
 *
 * <p>Targets: the throughputs within 5 % of the baseline's (the spread of one full-mode run of {@code
 * queue.enqueue.t1} and {@code queue.drain.t8} on a quiet machine is wider, so a miss names a cost larger than
 * that), the memory within 2 % (the figure is steady to 0.1 byte; 2 % is about 7 bytes a job). A note per metric
 * gives the ratio of each round next to each side's own run-to-run spread.
 */
final class FeatureCostRuns {

    /** The id prefix of this group. */
    static final String PREFIX = "queue.featureCost.";
    /** The side of the older build. */
    static final String BASELINE = "baseline";
    /** The artifact ids whose jars the baseline side takes from the old build. */
    static final List<String> SWAPPED = List.of("delay-core", "redis-support");

    private static final String[] FIGURES = {"enqueue", "enqueueCommands", "drain", "drainCommands", "bytesPerJob"};
    private static final String[] IDS = {
        "enqueue.t1", "enqueue.t1.commands", "drain.t8", "drain.t8.commands", "memory.bytesPerJob"
    };

    private final Redis redis;
    private final Settings settings;
    private final Results results;
    private final List<Path> baselineJars;
    private final String baselineRev;

    /**
     * @param baselineJars the old build's jars of {@link #SWAPPED}, or null when none was built
     * @param baselineRev what the old build is (commit and subject), for the notes
     */
    FeatureCostRuns(Redis redis, Settings settings, Results results, List<Path> baselineJars, String baselineRev) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
        this.baselineJars = baselineJars;
        this.baselineRev = baselineRev;
    }

    void run() {
        if (baselineJars == null) {
            for (String id : IDS) {
                for (String side : List.of(Sides.DEFERLOCK, BASELINE)) {
                    results.unavailable(
                            PREFIX + id,
                            side,
                            "not measured: needs `./bench --compare-with REV`, which builds REV's delay-core beside"
                                    + " this one");
                }
            }
            return;
        }
        Rounds.run(PREFIX + "*", settings.rounds(), List.of(Sides.DEFERLOCK, BASELINE), (side, round) -> {
            redis.flushAll();
            Map<String, String> got = probe(side.equals(BASELINE));
            for (int i = 0; i < IDS.length; i++) {
                results.add(PREFIX + IDS[i], side, Double.parseDouble(got.get(FIGURES[i])));
            }
            Progress.line(
                    "%-36s %-22s enqueue %s jobs/s, drain %s jobs/s, %s bytes/job",
                    PREFIX + "*",
                    side + " r" + round,
                    Report.number(Double.parseDouble(got.get("enqueue"))),
                    Report.number(Double.parseDouble(got.get("drain"))),
                    Report.number(Double.parseDouble(got.get("bytesPerJob"))));
        });
        String method = "`./bench --compare-with REV`: REV's delay-core and redis-support are built in a temporary git"
                + " worktree; each round starts one child JVM (`FeatureCostProbe`) per build, in a fresh random"
                + " order, against this run's redis-server, which it flushes; the same harness code on both, the"
                + " baseline's class path with the old jars in front. Each child runs, one after the other, the"
                + " deferlock workload of queue.enqueue.t1 ("
                + settings.warmup().toMillis() + " ms warm-up, "
                + settings.measure().toMillis() + " ms measured), queue.drain.t8 (" + settings.drainJobs()
                + " due jobs after a warm-up drain, " + QueueRuns.DRAIN_CONCURRENCY + " consumers) and"
                + " queue.memory.bytesPerJob (" + settings.memoryJobs() + " jobs); " + settings.rounds()
                + " round(s). baseline: " + baselineRev + ". Targets: throughput within 5 %, memory within 2 %"
                + " of the baseline, on the per-round ratios";
        for (String id : IDS) {
            results.note(PREFIX + id, "method", method);
            String spread = spread(PREFIX + id);
            if (spread != null) {
                results.note(PREFIX + id, "spread", spread);
            }
        }
    }

    /**
     * The per-round ratios this build ÷ baseline next to the run-to-run spread of each side ((max − min) ÷
     * median of its own rounds), and how many rounds' ratios lie within 1 ± the wider of the two spreads.
     */
    String spread(String id) {
        Results.Side ours = results.side(id, Sides.DEFERLOCK);
        Results.Side base = results.side(id, BASELINE);
        if (ours == null
                || base == null
                || ours.values().isEmpty()
                || ours.values().size() != base.values().size()) {
            return null;
        }
        double s = Math.max(relativeSpread(ours), relativeSpread(base));
        List<Double> ratios = Verdict.ratios(ours.values(), base.values());
        List<String> shown = new ArrayList<>();
        int within = 0;
        for (double r : ratios) {
            shown.add(String.format(Locale.ROOT, "%.3f", r));
            if (Math.abs(r - 1) <= s) {
                within++;
            }
        }
        return String.format(
                Locale.ROOT,
                "this build ÷ baseline per round: %s; run-to-run spread (max − min) ÷ median: this build %.1f %%,"
                        + " baseline %.1f %%; %d of %d rounds' ratios within 1 ± %.1f %% (the wider spread)",
                String.join(", ", shown),
                100 * relativeSpread(ours),
                100 * relativeSpread(base),
                within,
                ratios.size(),
                100 * s);
    }

    private static double relativeSpread(Results.Side s) {
        Results.Stat st = s.stat();
        return st.median() == 0 ? 0 : (st.max() - st.min()) / st.median();
    }

    /** Runs the probe in a child JVM on this build or on the baseline; returns its figures. */
    private Map<String, String> probe(boolean baseline) throws Exception {
        String own = System.getProperty("java.class.path");
        StringBuilder cp = new StringBuilder();
        if (baseline) {
            for (Path jar : baselineJars) {
                cp.append(jar.toAbsolutePath()).append(File.pathSeparator);
            }
        }
        cp.append(own);
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-cp",
                cp.toString(),
                FeatureCostProbe.class.getName(),
                redis.host(),
                String.valueOf(redis.port()),
                String.valueOf(settings.warmup().toMillis()),
                String.valueOf(settings.measure().toMillis()),
                String.valueOf(settings.drainJobs()),
                String.valueOf(settings.memoryJobs()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String result = null;
        StringBuilder log = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(FeatureCostProbe.MARK + " ")) {
                    result = line;
                } else if (log.length() < 4000) {
                    log.append(line).append('\n');
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("the probe did not end in 10 minutes");
        }
        if (p.exitValue() != 0 || result == null) {
            throw new IllegalStateException(
                    "the probe exited " + p.exitValue() + ": " + log.toString().trim());
        }
        Map<String, String> got = FeatureCostProbe.parse(result);
        String jar = Path.of(got.get("jar")).getFileName().toString();
        boolean onBaseline = baselineJars.stream()
                .anyMatch(j -> Path.of(got.get("jar")).toAbsolutePath().equals(j.toAbsolutePath()));
        if (onBaseline != baseline) {
            throw new IllegalStateException("the " + (baseline ? BASELINE : Sides.DEFERLOCK)
                    + " probe ran on the wrong delay-core: " + got.get("jar"));
        }
        Progress.line("%-36s %-22s ran on %s", PREFIX + "*", baseline ? BASELINE : Sides.DEFERLOCK, jar);
        return got;
    }
}
