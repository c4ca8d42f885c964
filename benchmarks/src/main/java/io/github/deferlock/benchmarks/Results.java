package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one run, keyed by metric id and side, one value per round; written as results.json (schema
 * {@value #SCHEMA}). Threadsafe (synchronized).
 */
final class Results {

    static final int SCHEMA = 2;
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * One side's figures of one metric.
     *
     * @param values one value per round, in round order
     * @param saturated whether a round of this side was saturated (handled or served below the offered rate)
     * @param unavailable why the side has no figure (e.g. npm missing), or null
     */
    record Side(List<Double> values, boolean saturated, String unavailable) {

        Stat stat() {
            return Stat.of(values);
        }
    }

    /** Median, min, max and the number of rounds of a side's values. */
    record Stat(double median, double min, double max, int rounds) {
        static Stat of(List<Double> values) {
            double[] v = values.stream()
                    .mapToDouble(Double::doubleValue)
                    .filter(x -> !Double.isNaN(x))
                    .toArray();
            if (v.length == 0) {
                return new Stat(Double.NaN, Double.NaN, Double.NaN, 0);
            }
            Arrays.sort(v);
            double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            return new Stat(median, v[0], v[v.length - 1], v.length);
        }
    }

    private final Map<String, Map<String, Side>> sides = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> notes = new LinkedHashMap<>();
    /** Curve id → side → x → the point's values, one per round (issue 30). */
    private final Map<String, Map<String, java.util.NavigableMap<Double, Side>>> curves = new LinkedHashMap<>();
    /** Curve id → side → why the side has no point. */
    private final Map<String, Map<String, String>> curveMissing = new LinkedHashMap<>();

    private ObjectNode run = JSON.createObjectNode();

    /** Adds one round's value of a side. */
    synchronized void add(String id, String side, double value) {
        add(id, side, value, false);
    }

    synchronized void add(String id, String side, double value, boolean saturated) {
        Metrics.get(id);
        Map<String, Side> m = sides.computeIfAbsent(id, k -> new LinkedHashMap<>());
        Side s = m.getOrDefault(side, new Side(List.of(), false, null));
        List<Double> v = new ArrayList<>(s.values());
        v.add(value);
        m.put(side, new Side(List.copyOf(v), s.saturated() || saturated, null));
    }

    /** Records why a side could not be measured. */
    synchronized void unavailable(String id, String side, String why) {
        Metrics.get(id);
        sides.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(side, new Side(List.of(), false, why));
    }

    /** Adds one round's value of a curve's point (x) of a side. */
    synchronized void addPoint(String id, String side, double x, double value, boolean saturated) {
        Curves.get(id);
        java.util.NavigableMap<Double, Side> points = curves.computeIfAbsent(id, k -> new LinkedHashMap<>())
                .computeIfAbsent(side, k -> new java.util.TreeMap<>());
        Side p = points.getOrDefault(x, new Side(List.of(), false, null));
        List<Double> v = new ArrayList<>(p.values());
        v.add(value);
        points.put(x, new Side(List.copyOf(v), p.saturated() || saturated, null));
        Map<String, String> missing = curveMissing.get(id);
        if (missing != null) {
            missing.remove(side);
        }
    }

    /** Records why a side of a curve has no point. */
    synchronized void curveUnavailable(String id, String side, String why) {
        Curves.get(id);
        curveMissing.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(side, why);
    }

    /** A curve's points: side → x → values; sides without points are absent. */
    synchronized Map<String, java.util.NavigableMap<Double, Side>> curve(String id) {
        Map<String, java.util.NavigableMap<Double, Side>> out = new LinkedHashMap<>();
        curves.getOrDefault(id, Map.of()).forEach((side, points) -> out.put(side, new java.util.TreeMap<>(points)));
        return out;
    }

    /** Why a side of a curve has no point, or null. */
    synchronized String curveUnavailable(String id, String side) {
        return curveMissing.getOrDefault(id, Map.of()).get(side);
    }

    synchronized void note(String id, String key, String text) {
        if (Curves.byId(id).isPresent()) {
            notes.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(key, text);
            return;
        }
        Metrics.get(id);
        notes.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(key, text);
    }

    synchronized Map<String, Side> sides(String id) {
        return Map.copyOf(sides.getOrDefault(id, Map.of()));
    }

    synchronized Side side(String id, String side) {
        return sides.getOrDefault(id, Map.of()).get(side);
    }

    /** The median of a side, NaN when missing. */
    synchronized double median(String id, String side) {
        Side s = side(id, side);
        return s == null ? Double.NaN : s.stat().median();
    }

    synchronized Map<String, String> notes(String id) {
        return Map.copyOf(notes.getOrDefault(id, Map.of()));
    }

    /** The run record (context, noise at start and end); written as results.json's {@code run}. */
    synchronized ObjectNode run() {
        return run;
    }

    synchronized ObjectNode toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema", SCHEMA);
        root.set("run", run.deepCopy());
        ObjectNode metrics = root.putObject("metrics");
        for (Metric m : Metrics.ALL) {
            ObjectNode node = metrics.putObject(m.id());
            node.put("unit", m.unit());
            node.put("better", m.better());
            node.put("description", m.description());
            ObjectNode out = node.putObject("sides");
            Map<String, Side> got = sides.getOrDefault(m.id(), Map.of());
            for (String side : order(m, got)) {
                Side s = got.get(side);
                ObjectNode sn = out.putObject(side);
                if (s == null || s.unavailable() != null || s.stat().rounds() == 0) {
                    sn.putNull("median");
                    sn.putNull("min");
                    sn.putNull("max");
                    sn.put("rounds", 0);
                    sn.put(
                            "unavailable",
                            s == null
                                    ? "not measured"
                                    : s.unavailable() == null ? "no value in any round" : s.unavailable());
                    continue;
                }
                figures(sn, s);
            }
            ArrayNode targets = node.putArray("targets");
            for (Metric.Target t : m.targets()) {
                Verdict.Judgement j = Verdict.judge(m, t, this);
                ObjectNode tn = targets.addObject();
                tn.put("rule", t.describe(m));
                tn.put("verdict", j.verdict().label());
                if (j.rounds() > 0) {
                    tn.put("roundsMet", j.roundsMet());
                    tn.put("rounds", j.rounds());
                }
                if (!Double.isNaN(j.median())) {
                    number(tn, "median", j.median());
                    number(tn, "min", j.min());
                    number(tn, "max", j.max());
                }
            }
            node.put("verdict", Verdict.overall(m, this).label());
            Map<String, String> n = notes.getOrDefault(m.id(), Map.of());
            if (!n.isEmpty()) {
                ObjectNode nn = node.putObject("notes");
                n.forEach(nn::put);
            }
        }
        ObjectNode cs = root.putObject("curves");
        for (Curve c : Curves.ALL) {
            ObjectNode node = cs.putObject(c.id());
            node.put("unit", c.unit());
            node.put("better", c.better());
            node.put("x", c.x());
            node.put("description", c.description());
            node.put("chart", "docs/" + Curve.CHART_DIR + "/" + c.chartFile());
            ObjectNode out = node.putObject("sides");
            Map<String, java.util.NavigableMap<Double, Side>> got = curves.getOrDefault(c.id(), Map.of());
            List<String> order = new ArrayList<>(c.sides());
            got.keySet().stream().filter(s -> !order.contains(s)).forEach(order::add);
            for (String side : order) {
                ObjectNode sn = out.putObject(side);
                java.util.NavigableMap<Double, Side> points = got.get(side);
                if (points == null || points.isEmpty()) {
                    sn.put(
                            "unavailable",
                            curveMissing.getOrDefault(c.id(), Map.of()).getOrDefault(side, "not measured"));
                    continue;
                }
                ArrayNode pts = sn.putArray("points");
                points.forEach((x, p) -> {
                    ObjectNode pn = pts.addObject();
                    number(pn, "x", x);
                    figures(pn, p);
                });
            }
            Map<String, String> n = notes.getOrDefault(c.id(), Map.of());
            if (!n.isEmpty()) {
                ObjectNode nn = node.putObject("notes");
                n.forEach(nn::put);
            }
        }
        return root;
    }

    private static List<String> order(Metric m, Map<String, Side> got) {
        List<String> out = new ArrayList<>(m.sides());
        got.keySet().stream().filter(s -> !out.contains(s)).forEach(out::add);
        return out;
    }

    /** A side's (or a curve point's) median, min, max, rounds, every round's value and the saturated flag. */
    private static void figures(ObjectNode n, Side s) {
        Stat st = s.stat();
        number(n, "median", st.median());
        number(n, "min", st.min());
        number(n, "max", st.max());
        n.put("rounds", st.rounds());
        ArrayNode values = n.putArray("values");
        s.values().forEach(v -> {
            if (Double.isNaN(v)) {
                values.addNull();
            } else {
                values.add(round(v));
            }
        });
        if (s.saturated()) {
            n.put("saturated", true);
        }
    }

    private static void number(ObjectNode n, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            n.putNull(field);
        } else {
            n.put(field, round(v));
        }
    }

    void write(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            JSON.writeValue(file.toFile(), toJson());
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write " + file, ex);
        }
    }

    /** Whether {@code file} exists and is of this schema. */
    static boolean isCurrentSchema(Path file) {
        try {
            return Files.exists(file)
                    && JSON.readTree(file.toFile()).path("schema").asInt() == SCHEMA;
        } catch (IOException e) {
            return false;
        }
    }

    /** Loads a results.json of schema 2 (for {@code --only} and {@code --render-only}). */
    static Results read(Path file) {
        Results r = new Results();
        if (!Files.exists(file)) {
            return r;
        }
        try {
            JsonNode root = JSON.readTree(file.toFile());
            if (root.path("schema").asInt() != SCHEMA) {
                return r;
            }
            if (root.get("run") instanceof ObjectNode o) {
                r.run = o;
            }
            for (Map.Entry<String, JsonNode> e : root.path("metrics").properties()) {
                if (Metrics.byId(e.getKey()).isEmpty()) {
                    continue;
                }
                for (Map.Entry<String, JsonNode> s : e.getValue().path("sides").properties()) {
                    JsonNode sn = s.getValue();
                    if (sn.hasNonNull("unavailable")) {
                        r.unavailable(
                                e.getKey(), s.getKey(), sn.get("unavailable").asText());
                        continue;
                    }
                    boolean sat = sn.path("saturated").asBoolean(false);
                    for (JsonNode v : sn.path("values")) {
                        r.add(e.getKey(), s.getKey(), v.isNumber() ? v.asDouble() : Double.NaN, sat);
                    }
                }
                e.getValue()
                        .path("notes")
                        .properties()
                        .forEach(
                                x -> r.note(e.getKey(), x.getKey(), x.getValue().asText()));
            }
            for (Map.Entry<String, JsonNode> e : root.path("curves").properties()) {
                if (Curves.byId(e.getKey()).isEmpty()) {
                    continue;
                }
                for (Map.Entry<String, JsonNode> s : e.getValue().path("sides").properties()) {
                    JsonNode sn = s.getValue();
                    if (sn.hasNonNull("unavailable")) {
                        if (!sn.get("unavailable").asText().equals("not measured")) {
                            r.curveUnavailable(
                                    e.getKey(),
                                    s.getKey(),
                                    sn.get("unavailable").asText());
                        }
                        continue;
                    }
                    for (JsonNode p : sn.path("points")) {
                        boolean sat = p.path("saturated").asBoolean(false);
                        for (JsonNode v : p.path("values")) {
                            r.addPoint(
                                    e.getKey(),
                                    s.getKey(),
                                    p.path("x").asDouble(),
                                    v.isNumber() ? v.asDouble() : Double.NaN,
                                    sat);
                        }
                    }
                }
                e.getValue()
                        .path("notes")
                        .properties()
                        .forEach(
                                x -> r.note(e.getKey(), x.getKey(), x.getValue().asText()));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read " + file, ex);
        }
        return r;
    }

    /** Copies every metric of {@code fresh} over this one's. */
    synchronized void overlay(Results fresh) {
        synchronized (fresh) {
            sides.putAll(fresh.sides);
            notes.putAll(fresh.notes);
            // a curve measured again replaces its every side; a curve not measured keeps its points
            for (String id : fresh.curves.keySet()) {
                curves.put(id, fresh.curves.get(id));
                curveMissing.remove(id);
            }
            for (String id : fresh.curveMissing.keySet()) {
                if (!fresh.curves.containsKey(id)) {
                    curves.remove(id);
                }
                curveMissing.put(id, fresh.curveMissing.get(id));
            }
            // the ids not re-measured keep their figures, so the report must still name the run they come from
            if (fresh.run.has("only") && run.has("date")) {
                ObjectNode base = run.has("base") ? (ObjectNode) run.get("base") : run.deepCopy();
                fresh.run.set("base", base);
                // earlier partial runs whose figures are still on the page: each named with its prefix, so the
                // report does not credit their figures to the base run
                ArrayNode partials = fresh.run.putArray("partials");
                if (run.get("partials") instanceof ArrayNode earlier) {
                    earlier.forEach(p -> {
                        if (!p.path("only")
                                .asText()
                                .startsWith(fresh.run.get("only").asText())) {
                            partials.add(p);
                        }
                    });
                }
                if (run.has("only")
                        && !run.get("only")
                                .asText()
                                .startsWith(fresh.run.get("only").asText())) {
                    ObjectNode p = partials.addObject();
                    for (String f : List.of("only", "date", "mode", "rounds", "seconds", "noisy")) {
                        if (run.hasNonNull(f)) {
                            p.set(f, run.get(f));
                        }
                    }
                }
                if (partials.isEmpty()) {
                    fresh.run.remove("partials");
                }
            }
            run = fresh.run;
        }
    }

    static double round(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return v;
        }
        double abs = Math.abs(v);
        double scale = abs >= 1000 ? 1 : abs >= 10 ? 10 : abs >= 1 ? 100 : 1000;
        return Math.round(v * scale) / scale;
    }
}
