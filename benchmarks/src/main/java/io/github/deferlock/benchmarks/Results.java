package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The figures of one run, keyed by metric id; written as results.json. Threadsafe (synchronized). */
final class Results {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * The figures of one metric.
     *
     * @param sides side name → figure (deferlock, raw, redisson, seed)
     * @param extras further figures reported beside deferlock's (e.g. other strategies)
     * @param notes how each side was measured, for the report
     */
    record Entry(Map<String, Double> sides, Map<String, Double> extras, Map<String, String> notes) {
        Entry() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    private final Map<String, Entry> entries = new LinkedHashMap<>();

    synchronized void put(String id, String side, double value) {
        requireKnown(id);
        entries.computeIfAbsent(id, k -> new Entry()).sides().put(side, value);
    }

    synchronized void extra(String id, String name, double value) {
        requireKnown(id);
        entries.computeIfAbsent(id, k -> new Entry()).extras().put(name, value);
    }

    synchronized void note(String id, String side, String note) {
        requireKnown(id);
        entries.computeIfAbsent(id, k -> new Entry()).notes().put(side, note);
    }

    synchronized Entry get(String id) {
        return entries.getOrDefault(id, new Entry());
    }

    synchronized boolean has(String id) {
        return entries.containsKey(id) && entries.get(id).sides().containsKey("deferlock");
    }

    private static void requireKnown(String id) {
        if (Metrics.byId(id).isEmpty()) {
            throw new IllegalArgumentException("unknown metric id " + id);
        }
    }

    /** Loads a results.json written earlier (for {@code --only}: the ids not rerun keep their figures). */
    static Results read(Path file) {
        Results r = new Results();
        if (!Files.exists(file)) {
            return r;
        }
        try {
            JsonNode root = JSON.readTree(file.toFile());
            for (Map.Entry<String, JsonNode> e : root.properties()) {
                if (Metrics.byId(e.getKey()).isEmpty()) {
                    continue;
                }
                for (String side : Metric.SIDES) {
                    JsonNode v = e.getValue().get(side);
                    if (v != null && v.isNumber()) {
                        r.put(e.getKey(), side, v.asDouble());
                    }
                }
                JsonNode notes = e.getValue().get("notes");
                if (notes != null) {
                    notes.properties()
                            .forEach(x ->
                                    r.note(e.getKey(), x.getKey(), x.getValue().asText()));
                }
                JsonNode extras = e.getValue().get("also");
                if (extras != null) {
                    extras.properties()
                            .forEach(x ->
                                    r.extra(e.getKey(), x.getKey(), x.getValue().asDouble()));
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read " + file, ex);
        }
        return r;
    }

    /** Copies every metric of {@code fresh} over this one's. */
    synchronized void overlay(Results fresh) {
        synchronized (fresh) {
            entries.putAll(fresh.entries);
        }
    }

    synchronized ObjectNode toJson() {
        ObjectNode root = JSON.createObjectNode();
        for (Metric m : Metrics.ALL) {
            Entry e = entries.getOrDefault(m.id(), new Entry());
            ObjectNode node = root.putObject(m.id());
            node.put("unit", m.unit());
            node.put("better", m.better());
            for (String side : Metric.SIDES) {
                Double v = e.sides().get(side);
                if (v != null && !v.isNaN()) {
                    node.put(side, round(v));
                } else if (side.equals("deferlock") || v != null) {
                    node.putNull(side);
                }
            }
            if (!e.extras().isEmpty()) {
                ObjectNode also = node.putObject("also");
                e.extras().forEach((k, v) -> also.put(k, round(v)));
            }
            if (!e.notes().isEmpty()) {
                ObjectNode notes = node.putObject("notes");
                e.notes().forEach(notes::put);
            }
            if (!m.targets().isEmpty()) {
                StringBuilder t = new StringBuilder();
                Boolean all = Boolean.TRUE;
                for (Metric.Target target : m.targets()) {
                    t.append(t.length() == 0 ? "" : ", ").append(target.describe(m));
                    Boolean met = target.met(m, e);
                    all = met == null || all == null ? null : all && met;
                }
                node.put("target", t.toString());
                if (all == null) {
                    node.putNull("met");
                } else {
                    node.put("met", all);
                }
            }
        }
        return root;
    }

    void write(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            JSON.writeValue(file.toFile(), toJson());
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write " + file, ex);
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
