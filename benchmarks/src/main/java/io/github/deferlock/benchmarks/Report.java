package io.github.deferlock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes docs/benchmarks.md from a run's {@link Results}. */
final class Report {

    /**
     * The run's context for the header.
     *
     * @param date when the run started (UTC)
     * @param mode full, quick or tiny
     * @param jdk the JVM
     * @param redisVersion the server's version
     * @param redisWhere where the server came from
     * @param cores available processors
     * @param cpu the CPU model
     * @param os the OS
     * @param note a free note on the machine (e.g. shared with builds)
     * @param only the --only prefix, or null
     */
    record Context(
            String date,
            String mode,
            String jdk,
            String redisVersion,
            String redisWhere,
            int cores,
            String cpu,
            String os,
            String note,
            String only) {

        private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
                new com.fasterxml.jackson.databind.ObjectMapper();

        /** Saves the context next to the build output, so {@code --render-only} can redo the report. */
        void save(Path file) {
            try {
                Files.createDirectories(file.toAbsolutePath().getParent());
                JSON.writeValue(file.toFile(), this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }

        static Context load(Path file) {
            try {
                return JSON.readValue(file.toFile(), Context.class);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + " (run the benchmarks first)", e);
            }
        }
    }

    private Report() {}

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        if (a < 1000 && a == Math.rint(a)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a == Math.rint(a)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static void write(Path file, Context ctx, Results results) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, render(ctx, results), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String render(Context ctx, Results results) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        md.append("Every figure below was measured in one run of `./bench")
                .append(ctx.mode().equals("full") ? "" : " --" + ctx.mode())
                .append("` against one fresh redis-server; each ratio compares sides measured in that same run ")
                .append("against that same server, because absolute numbers on a shared machine drift between ")
                .append(
                        "runs. \"deferlock ÷ side\" is deferlock's figure divided by that side's. The machine-readable ")
                .append("figures, with how each side was measured, are in `benchmarks/results.json`.\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| date | ").append(ctx.date()).append(" |\n");
        md.append("| mode | ").append(ctx.mode());
        if (ctx.only() != null) {
            md.append(" (only `").append(ctx.only()).append("`; other figures kept from an earlier run)");
        }
        md.append(" |\n");
        md.append("| JDK | ").append(ctx.jdk()).append(" |\n");
        md.append("| Redis | ")
                .append(ctx.redisVersion())
                .append(", ")
                .append(ctx.redisWhere())
                .append(" |\n");
        md.append("| CPU | ")
                .append(ctx.cores())
                .append(" cores, ")
                .append(ctx.cpu())
                .append(" |\n");
        md.append("| OS | ").append(ctx.os()).append(" |\n");
        if (ctx.note() != null && !ctx.note().isBlank()) {
            md.append("| note | ").append(ctx.note()).append(" |\n");
        }
        md.append("\n## Summary\n\n");
        md.append("| metric | unit | better | deferlock | raw | redisson | seed | target | result |\n");
        md.append("|---|---|---|--:|--:|--:|--:|---|---|\n");
        Map<String, String> missed = new LinkedHashMap<>();
        for (Metric m : Metrics.ALL) {
            Results.Entry e = results.get(m.id());
            md.append("| `").append(m.id()).append("` | ").append(m.unit()).append(" | ");
            md.append(m.better()).append(" | ");
            for (String side : Metric.SIDES) {
                Double v = e.sides().get(side);
                md.append(v == null ? "–" : number(v)).append(" | ");
            }
            md.append(targets(m)).append(" | ").append(verdict(m, e)).append(" |\n");
            if (verdict(m, e).startsWith("**missed")) {
                missed.put(m.id(), verdict(m, e));
            }
        }
        md.append("\nraw = bare Jedis commands (the ceiling), except in `lock.contended.hold1ms.*` where it is an ")
                .append("in-process fair `ReentrantLock` doing the same work (the hold-bound limit); ")
                .append("seed = the seed articles' naive designs.\n");

        md.append("\n## Per metric\n");
        for (Metric m : Metrics.ALL) {
            Results.Entry e = results.get(m.id());
            md.append("\n### `").append(m.id()).append("`\n\n");
            md.append(m.description()).append(". Unit: ").append(m.unit()).append(", ");
            md.append(m.better()).append(" is better.\n\n");
            md.append("| side | figure | deferlock ÷ side |\n|---|--:|--:|\n");
            Double ours = e.sides().get("deferlock");
            for (String side : Metric.SIDES) {
                Double v = e.sides().get(side);
                if (v == null) {
                    continue;
                }
                String ratio = ours == null || v == 0 || side.equals("deferlock")
                        ? "–"
                        : String.format(Locale.ROOT, "%.2f", ours / v);
                md.append("| ")
                        .append(side)
                        .append(" | ")
                        .append(number(v))
                        .append(" | ")
                        .append(ratio)
                        .append(" |\n");
            }
            e.extras().forEach((k, v) -> md.append("| ")
                    .append(k)
                    .append(" | ")
                    .append(number(v))
                    .append(" | – |\n"));
            md.append("\nTarget: ")
                    .append(targets(m))
                    .append(" — ")
                    .append(verdict(m, e))
                    .append(".\n");
            e.notes().forEach((k, v) -> md.append("\n- ").append(k).append(": ").append(v));
            if (!e.notes().isEmpty()) {
                md.append('\n');
            }
        }

        md.append("\n## Sides and settings\n\n")
                .append(resource("sides.md").trim())
                .append('\n');
        md.append("\n## What limits the missed figures\n\n");
        if (missed.isEmpty()) {
            md.append("Every target was met in this run.\n");
        } else {
            Map<String, String> limits = sections(resource("limits.md"));
            for (Map.Entry<String, String> x : missed.entrySet()) {
                md.append("### `")
                        .append(x.getKey())
                        .append("` (")
                        .append(x.getValue().replace("**", ""));
                md.append(")\n\n");
                md.append(limits.getOrDefault(x.getKey(), "Not investigated yet.")
                                .trim())
                        .append("\n\n");
            }
        }
        String general = sections(resource("limits.md")).get("general");
        if (general != null) {
            md.append("### Reading these figures\n\n").append(general.trim()).append('\n');
        }
        return md.toString();
    }

    private static String targets(Metric m) {
        if (m.targets().isEmpty()) {
            return "reported";
        }
        StringBuilder sb = new StringBuilder();
        for (Metric.Target t : m.targets()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(t.describe(m));
        }
        return sb.toString();
    }

    static String verdict(Metric m, Results.Entry e) {
        if (m.targets().isEmpty()) {
            return "reported";
        }
        List<String> misses = new java.util.ArrayList<>();
        boolean unknown = false;
        for (Metric.Target t : m.targets()) {
            Boolean met = t.met(m, e);
            if (met == null) {
                unknown = true;
            } else if (!met) {
                Double ours = e.sides().get("deferlock");
                String got = t.peer() == null
                        ? number(ours)
                        : missedRatio(ours / e.sides().get(t.peer()), t.value()) + " × " + t.peer();
                misses.add(got);
            }
        }
        if (!misses.isEmpty()) {
            return "**missed** (" + String.join(", ", misses) + ")";
        }
        return unknown ? "not measured" : "met";
    }

    /** A missed ratio, with a third decimal when two would round it onto the target (0.796 → "0.796"). */
    static String missedRatio(double ratio, double target) {
        String two = String.format(Locale.ROOT, "%.2f", ratio);
        return Double.parseDouble(two) == target ? String.format(Locale.ROOT, "%.3f", ratio) : two;
    }

    private static String resource(String name) {
        try (InputStream in = Report.class.getResourceAsStream(name)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Splits a markdown text at its {@code ## id} headings. */
    static Map<String, String> sections(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("## ")) {
                if (current != null) {
                    out.put(current, body.toString());
                }
                current = line.substring(3).trim();
                body.setLength(0);
            } else if (current != null) {
                body.append(line).append('\n');
            }
        }
        if (current != null) {
            out.put(current, body.toString());
        }
        return out;
    }
}
