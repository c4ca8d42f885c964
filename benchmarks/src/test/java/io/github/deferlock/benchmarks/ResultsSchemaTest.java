package io.github.deferlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of results.json (schema 2) and of the report written from it; no Redis, no measurement. The
 * committed benchmarks/results.json is checked too once it is of schema 2.
 */
final class ResultsSchemaTest {

    /** Every problem with a results.json tree; empty when it has the schema. */
    static List<String> problems(JsonNode root) {
        List<String> out = new ArrayList<>();
        if (root.path("schema").asInt() != Results.SCHEMA) {
            out.add("schema is not " + Results.SCHEMA);
        }
        for (String f : List.of("date", "mode", "rounds", "jdk", "redis", "cores", "noiseStart", "noiseEnd")) {
            if (!root.path("run").has(f)) {
                out.add("run." + f + " missing");
            }
        }
        for (String w : List.of("noiseStart", "noiseEnd")) {
            for (String f : List.of("load1", "stealPercent", "pingMicros")) {
                if (!root.path("run").path(w).has(f)) {
                    out.add("run." + w + "." + f + " missing");
                }
            }
        }
        JsonNode metrics = root.path("metrics");
        if (metrics.size() != Metrics.ALL.size()) {
            out.add("metrics has " + metrics.size() + " ids, expected " + Metrics.ALL.size());
        }
        Set<String> verdicts = Set.of("met", "missed", "inconclusive", "saturated", "not measured", "reported");
        for (Metric m : Metrics.ALL) {
            JsonNode n = metrics.get(m.id());
            if (n == null) {
                out.add(m.id() + " missing");
                continue;
            }
            if (!m.unit().equals(n.path("unit").asText())) {
                out.add(m.id() + ": unit");
            }
            if (!Set.of("higher", "lower").contains(n.path("better").asText())) {
                out.add(m.id() + ": better");
            }
            if (!verdicts.contains(n.path("verdict").asText())) {
                out.add(m.id() + ": verdict " + n.path("verdict"));
            }
            if (n.path("targets").size() != m.targets().size()) {
                out.add(m.id() + ": targets");
            }
            for (String side : m.sides()) {
                JsonNode s = n.path("sides").get(side);
                if (s == null) {
                    out.add(m.id() + ": side " + side + " missing");
                    continue;
                }
                for (String f : List.of("median", "min", "max")) {
                    if (!s.has(f) || !(s.get(f).isNumber() || s.get(f).isNull())) {
                        out.add(m.id() + "/" + side + ": " + f);
                    }
                }
                if (!s.path("rounds").isInt()) {
                    out.add(m.id() + "/" + side + ": rounds");
                } else if (s.get("rounds").asInt() == 0 && !s.hasNonNull("unavailable")) {
                    out.add(m.id() + "/" + side + ": no value and no reason");
                } else if (s.get("rounds").asInt() > 0
                        && s.path("values").size() < s.get("rounds").asInt()) {
                    out.add(m.id() + "/" + side + ": values");
                }
            }
        }
        out.addAll(curveProblems(root));
        return out;
    }

    /**
     * Every problem with results.json's {@code curves} (issue 30): every curve id, every side of it either with
     * points (x, median, min, max, rounds, values) or with the reason it has none.
     */
    static List<String> curveProblems(JsonNode root) {
        List<String> out = new ArrayList<>();
        JsonNode curves = root.path("curves");
        if (curves.size() != Curves.ALL.size()) {
            out.add("curves has " + curves.size() + " ids, expected " + Curves.ALL.size());
        }
        for (Curve c : Curves.ALL) {
            JsonNode n = curves.get(c.id());
            if (n == null) {
                out.add(c.id() + " missing");
                continue;
            }
            if (!c.unit().equals(n.path("unit").asText())
                    || !c.x().equals(n.path("x").asText())) {
                out.add(c.id() + ": unit or x");
            }
            if (!n.path("chart").asText().equals("docs/charts/" + c.id() + ".png")) {
                out.add(c.id() + ": chart " + n.path("chart"));
            }
            for (String side : c.sides()) {
                JsonNode s = n.path("sides").get(side);
                if (s == null) {
                    out.add(c.id() + ": side " + side + " missing");
                    continue;
                }
                if (s.hasNonNull("unavailable")) {
                    continue;
                }
                if (s.path("points").isEmpty()) {
                    out.add(c.id() + "/" + side + ": no point and no reason");
                }
                double last = Double.NEGATIVE_INFINITY;
                for (JsonNode p : s.path("points")) {
                    for (String f : List.of("x", "median", "min", "max")) {
                        if (!p.has(f) || !(p.get(f).isNumber() || p.get(f).isNull())) {
                            out.add(c.id() + "/" + side + ": point " + f);
                        }
                    }
                    if (p.path("x").asDouble() <= last) {
                        out.add(c.id() + "/" + side + ": points not in x order");
                    }
                    last = p.path("x").asDouble();
                    if (p.path("values").size() < p.path("rounds").asInt()) {
                        out.add(c.id() + "/" + side + ": values");
                    }
                }
            }
        }
        return out;
    }

    private static Results synthetic() {
        Results r = new Results();
        r.run()
                .put("date", "2026-11-23 23:00 UTC")
                .put("mode", "test")
                .put("rounds", 2)
                .put("jdk", "x")
                .put("redis", "7")
                .put("cores", 2);
        r.run().putObject("noiseStart").put("load1", 0.1).put("stealPercent", 0).put("pingMicros", 20);
        r.run().putObject("noiseEnd").put("load1", 0.1).put("stealPercent", 0).put("pingMicros", 20);
        for (Metric m : Metrics.ALL) {
            for (String side : m.sides()) {
                if (side.equals(Sides.BULLMQ)) {
                    r.unavailable(m.id(), side, "BullMQ not measured: node not on PATH");
                } else {
                    r.add(m.id(), side, 10);
                    r.add(m.id(), side, 12, side.equals(Sides.SEED) && m.id().startsWith("queue.lateness"));
                }
            }
        }
        for (Curve c : Curves.ALL) {
            for (String side : c.sides()) {
                if (side.equals(Sides.BULLMQ)) {
                    r.curveUnavailable(c.id(), side, "BullMQ not measured: node not on PATH");
                    continue;
                }
                for (double x : List.of(1.0, 10.0, 100.0)) {
                    r.addPoint(c.id(), side, x, 10 * x, false);
                    r.addPoint(c.id(), side, x, 12 * x, false);
                }
            }
        }
        return r;
    }

    @Test
    void writtenCurves_haveEveryIdWithPointsPerSide_andReadBackAsWritten(@TempDir Path dir) throws Exception {
        synthetic().write(dir.resolve("results.json"));

        JsonNode root = Results.JSON.readTree(dir.resolve("results.json").toFile());
        assertThat(curveProblems(root)).isEmpty();
        JsonNode point = root.path("curves")
                .path("curve.lock.threads.throughput")
                .path("sides")
                .path(Sides.DEFERLOCK)
                .path("points")
                .get(1);
        assertThat(point.path("x").asDouble()).isEqualTo(10.0);
        assertThat(point.path("median").asDouble()).isEqualTo(110.0);
        assertThat(point.path("values")).hasSize(2);
        Results back = Results.read(dir.resolve("results.json"));
        assertThat(back.curve("curve.lock.threads.throughput").get(Sides.DEFERLOCK))
                .containsOnlyKeys(1.0, 10.0, 100.0);
        assertThat(back.curveUnavailable("curve.queue.payload.enqueue", Sides.BULLMQ))
                .contains("node");
    }

    @Test
    void anOverlayOfCurves_replacesTheMeasuredCurvesOnly_andKeepsEveryMetric() {
        Results all = synthetic();
        Results fresh = new Results();
        fresh.run().put("date", "2026-11-27 14:00 UTC").put("mode", "quick").put("only", "curve.lock.threads");
        fresh.addPoint("curve.lock.threads.throughput", Sides.DEFERLOCK, 4, 99, false);

        all.overlay(fresh);

        assertThat(all.curve("curve.lock.threads.throughput")).containsOnlyKeys(Sides.DEFERLOCK);
        assertThat(all.curve("curve.lock.threads.throughput").get(Sides.DEFERLOCK))
                .containsOnlyKeys(4.0);
        assertThat(all.curve("curve.queue.depth.drain")).containsKey(Sides.DEFERLOCK);
        assertThat(all.side("lock.uncontended.t1", Sides.DEFERLOCK).values()).containsExactly(10.0, 12.0);
    }

    @Test
    void report_hasACurvesSectionWithEveryCurveItsChartAndItsSides(@TempDir Path dir) throws Exception {
        Results r = synthetic();
        Report.write(dir.resolve("docs/benchmarks.md"), r);

        String md = Files.readString(dir.resolve("docs/benchmarks.md"));
        assertThat(md).contains("## Curves");
        for (Curve c : Curves.ALL) {
            String section = ReadmeFiguresTest.section(md, c.id());
            assertThat(section).as(c.id()).contains("](charts/" + c.id() + ".png)");
            for (String side : c.sides()) {
                assertThat(section).as(c.id() + " " + side).contains(side);
            }
            Path png = dir.resolve("docs/charts/" + c.id() + ".png");
            assertThat(png).as(c.id()).exists();
            byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
            assertThat(head).containsExactly(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void writtenResults_haveOneObjectPerMetricIdWithMedianMinMaxAndRoundsPerSide(@TempDir Path dir) throws Exception {
        synthetic().write(dir.resolve("results.json"));

        JsonNode root = Results.JSON.readTree(dir.resolve("results.json").toFile());
        assertThat(problems(root)).isEmpty();
        JsonNode t1 =
                root.path("metrics").path("lock.uncontended.t1").path("sides").path(Sides.DEFERLOCK);
        assertThat(t1.path("median").asDouble()).isEqualTo(11.0);
        assertThat(t1.path("min").asDouble()).isEqualTo(10.0);
        assertThat(t1.path("max").asDouble()).isEqualTo(12.0);
        assertThat(t1.path("rounds").asInt()).isEqualTo(2);
        assertThat(root.path("metrics")
                        .path("queue.enqueue.t1")
                        .path("sides")
                        .path(Sides.BULLMQ)
                        .path("unavailable")
                        .asText())
                .contains("node");
    }

    @Test
    void resultsReadBack_renderTheSameJson(@TempDir Path dir) throws Exception {
        Results r = synthetic();
        r.write(dir.resolve("a.json"));
        Results.read(dir.resolve("a.json")).write(dir.resolve("b.json"));

        assertThat(Files.readString(dir.resolve("b.json"))).isEqualTo(Files.readString(dir.resolve("a.json")));
    }

    @Test
    void report_namesEveryMetricIdAndFillsEveryPlaceholder(@TempDir Path dir) throws Exception {
        Report.write(dir.resolve("benchmarks.md"), synthetic());

        String md = Files.readString(dir.resolve("benchmarks.md"));
        for (Metric m : Metrics.ALL) {
            assertThat(md).contains("`" + m.id() + "`");
        }
        assertThat(md)
                .contains("### Noise record", "## Targets", "## What limits the figures", "## Method")
                .doesNotContain("{{", "<!--");
    }

    @Test
    void anOverlayRun_keepsTheRunTheOtherFiguresComeFrom_andTheReportNamesIt(@TempDir Path dir) throws Exception {
        Results all = synthetic();
        all.run().put("seconds", 3558).put("noisy", "during: others 22.4 %");
        Results fresh = new Results();
        fresh.run().put("date", "2026-11-24 19:40 UTC").put("mode", "full").put("only", "lock.contended");
        fresh.add("lock.contended.2jvm.jain", Sides.DEFERLOCK, 0.99);

        all.overlay(fresh);
        all.write(dir.resolve("results.json"));
        Results again = Results.read(dir.resolve("results.json"));
        Report.write(dir.resolve("benchmarks.md"), again);

        assertThat(again.run().path("base").path("date").asText()).isEqualTo("2026-11-23 23:00 UTC");
        assertThat(again.side("lock.contended.2jvm.jain", Sides.DEFERLOCK).values())
                .containsExactly(0.99);
        assertThat(again.side("lock.uncontended.t1", Sides.DEFERLOCK).values()).containsExactly(10.0, 12.0);
        String md = Files.readString(dir.resolve("benchmarks.md"));
        assertThat(md)
                .contains("measured only the metric ids starting with `lock.contended`")
                .contains(
                        "run of 2026-11-23 23:00 UTC (2 rounds per side, 3558 s; flagged noisy: during: others 22.4 %)");

        // a second overlay still names the first full run, not the first overlay
        Results fresh2 = new Results();
        fresh2.run().put("date", "2026-11-24 20:00 UTC").put("mode", "full").put("only", "lock.openloop");
        again.overlay(fresh2);
        assertThat(again.run().path("base").path("date").asText()).isEqualTo("2026-11-23 23:00 UTC");

        // a third partial run keeps naming the first two, whose figures are still on the page
        Results fresh3 = new Results();
        fresh3.run().put("date", "2026-11-24 21:00 UTC").put("mode", "quick").put("only", "limits.rate");
        again.overlay(fresh3);
        assertThat(again.run().path("partials")).hasSize(2);
        assertThat(Report.render(again))
                .contains("The metric ids starting with `lock.openloop` are from an earlier partial full run of"
                        + " 2026-11-24 20:00 UTC");

        // a partial run that re-measures a prefix drops the earlier partial runs of it
        Results fresh4 = new Results();
        fresh4.run().put("date", "2026-11-24 22:00 UTC").put("mode", "full").put("only", "lock");
        again.overlay(fresh4);
        assertThat(again.run().path("partials")).hasSize(1);
        assertThat(again.run().path("partials").get(0).path("only").asText()).isEqualTo("limits.rate");
    }

    @Test
    void limitsTemplate_namesOnlyRealMetricIds() {
        for (String id : Report.placeholderIds(Report.template("limits.md"))) {
            assertThat(Metrics.byId(id)).as(id).isPresent();
        }
        assertThat(Report.placeholderIds(Report.template("limits.md"))).isNotEmpty();
    }

    @Test
    void committedResults_haveTheSchemaOnceTheyAreOfVersion2() throws Exception {
        Path committed = Path.of("results.json");
        if (!Files.exists(committed)) {
            return;
        }
        JsonNode root = Results.JSON.readTree(committed.toFile());
        if (root.path("schema").asInt() == Results.SCHEMA) {
            assertThat(problems(root)).isEmpty();
        }
    }

    @Test
    void verdicts_meetMissStraddleAndSaturate() {
        Metric m = Metrics.get("queue.enqueue.t1");
        Metric.Target vsBullmq = m.targets().stream()
                .filter(t -> Sides.BULLMQ.equals(t.peer()))
                .findFirst()
                .orElseThrow();
        assertThat(judge(m, vsBullmq, List.of(130.0, 140.0), List.of(100.0, 100.0), false))
                .isEqualTo(Verdict.MET);
        assertThat(judge(m, vsBullmq, List.of(100.0, 110.0), List.of(100.0, 100.0), false))
                .isEqualTo(Verdict.MISSED);
        assertThat(judge(m, vsBullmq, List.of(110.0, 130.0), List.of(100.0, 100.0), false))
                .isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(judge(m, vsBullmq, List.of(130.0, 140.0), List.of(100.0, 100.0), true))
                .isEqualTo(Verdict.SATURATED);
        Metric late = Metrics.get("queue.lateness.500.p99");
        Metric.Target bound = late.targets().stream()
                .filter(t -> t.peer() == null)
                .findFirst()
                .orElseThrow();
        Results r = new Results();
        r.add(late.id(), Sides.DEFERLOCK, 4);
        r.add(late.id(), Sides.DEFERLOCK, 6);
        assertThat(Verdict.judge(late, bound, r).verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(Verdict.overall(Metrics.get("lock.uncontended.t1.commands"), r))
                .isEqualTo(Verdict.REPORTED);
    }

    private static Verdict judge(Metric m, Metric.Target t, List<Double> ours, List<Double> peer, boolean saturated) {
        Results r = new Results();
        for (double v : ours) {
            r.add(m.id(), Sides.DEFERLOCK, v);
        }
        for (double v : peer) {
            r.add(m.id(), t.peer(), v, saturated);
        }
        Map<String, Results.Side> sides = r.sides(m.id());
        assertThat(sides).containsKeys(Sides.DEFERLOCK, t.peer());
        return Verdict.judge(m, t, r).verdict();
    }
}
