package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's noise record, taken at the start and the end of a run: load average, CPU steal over one
 * second ({@code /proc/stat}) and the round trip of {@code redis-benchmark -c 1 PING}.
 */
final class Noise {

    /** Above this 1-minute load per core the run is noisy. */
    static final double LOAD_PER_CORE = 0.5;
    /** Above this steal percentage the run is noisy. */
    static final double STEAL_PERCENT = 5;
    /** Above this PING round trip (µs) on loopback the run is noisy. */
    static final double PING_MICROS = 80;

    private Noise() {}

    /** Takes a sample into {@code node}: {@code load1}, {@code stealPercent}, {@code pingMicros}. */
    static void sample(Redis redis, ObjectNode node) throws InterruptedException {
        node.put("load1", load1());
        long[] a = cpu();
        Thread.sleep(1000);
        long[] b = cpu();
        if (a != null && b != null) {
            long total = 0;
            for (int i = 0; i < a.length; i++) {
                total += b[i] - a[i];
            }
            double steal = a.length > 7 && total > 0 ? 100.0 * (b[7] - a[7]) / total : 0;
            node.put("stealPercent", Results.round(steal));
        }
        try {
            double rps = Limits.run(redis, new Limits.Probe("noise", "", "ping", null, 1, 1), 5000);
            node.put("pingMicros", Results.round(1e6 / rps));
        } catch (IOException | RuntimeException e) {
            node.put("pingMicros", (String) null);
        }
    }

    /** Why the run is noisy, or null when it is not. */
    static String verdict(ObjectNode start, ObjectNode end, int cores) {
        StringBuilder why = new StringBuilder();
        for (ObjectNode n : new ObjectNode[] {start, end}) {
            if (n == null) {
                continue;
            }
            String when = n == start ? "start" : "end";
            if (n.path("load1").asDouble() > LOAD_PER_CORE * cores) {
                why.append(when)
                        .append(": load average ")
                        .append(n.path("load1").asDouble())
                        .append(" on ")
                        .append(cores)
                        .append(" cores; ");
            }
            if (n.path("stealPercent").asDouble() > STEAL_PERCENT) {
                why.append(when)
                        .append(": CPU steal ")
                        .append(n.path("stealPercent").asDouble())
                        .append("%; ");
            }
            if (n.path("pingMicros").asDouble() > PING_MICROS) {
                why.append(when)
                        .append(": PING round trip ")
                        .append(n.path("pingMicros").asDouble())
                        .append(" µs; ");
            }
        }
        return why.length() == 0 ? null : why.substring(0, why.length() - 2);
    }

    static double load1() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static long[] cpu() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    long[] v = new long[f.length - 1];
                    for (int i = 1; i < f.length; i++) {
                        v[i - 1] = Long.parseLong(f[i]);
                    }
                    return v;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return null;
    }
}
