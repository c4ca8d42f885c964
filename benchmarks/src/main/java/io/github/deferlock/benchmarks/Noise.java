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
    /**
     * Above this mean share of the machine's CPU used by processes outside this run (not the harness, its child
     * processes or the redis-server it started) during the run, the run is noisy.
     */
    static final double OTHERS_PERCENT = 10;

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
    static String verdict(ObjectNode start, ObjectNode end, ObjectNode during, int cores) {
        StringBuilder why = new StringBuilder();
        if (during != null && during.path("othersPercentMean").asDouble() > OTHERS_PERCENT) {
            why.append("during: other processes used ")
                    .append(during.path("othersPercentMean").asDouble())
                    .append("% of the CPU on average (max ")
                    .append(during.path("othersPercentMax").asDouble())
                    .append("%); ");
        }
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

    /**
     * Samples, every {@code period}, how much of the machine's CPU went to processes outside this run's process
     * tree (this JVM and its descendants: the redis-server it started, worker JVMs, Node), until closed; {@link
     * #close()} writes {@code othersPercentMean}, {@code othersPercentMax} and {@code samples} into the node.
     * This is the record of what ran beside the benchmark between the start and end samples.
     */
    static final class During implements AutoCloseable {
        private final ObjectNode node;
        private final Thread thread;
        private volatile boolean stop;
        private double sum;
        private double max;
        private int samples;

        During(ObjectNode node, java.time.Duration period) {
            this.node = node;
            this.thread = new Thread(() -> loop(period.toMillis()), "bench-noise");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop(long periodMillis) {
            long[] before = machineAndTree();
            while (!stop) {
                try {
                    Thread.sleep(periodMillis);
                } catch (InterruptedException e) {
                    return;
                }
                long[] now = machineAndTree();
                if (before != null && now != null && now[0] > before[0]) {
                    double others =
                            100.0 * Math.max(0, (now[1] - before[1]) - (now[2] - before[2])) / (now[0] - before[0]);
                    synchronized (this) {
                        sum += others;
                        max = Math.max(max, others);
                        samples++;
                    }
                }
                before = now;
            }
        }

        @Override
        public void close() {
            stop = true;
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                node.put("samples", samples);
                node.put("othersPercentMean", samples == 0 ? 0 : Results.round(sum / samples));
                node.put("othersPercentMax", Results.round(max));
            }
        }

        /** {total jiffies, busy jiffies, this run's jiffies}, or null when /proc cannot be read. */
        private static long[] machineAndTree() {
            long[] cpu = cpu();
            if (cpu == null || cpu.length < 8) {
                return null;
            }
            long total = 0;
            for (long v : cpu) {
                total += v;
            }
            long busy = total - cpu[3] - cpu[4]; // minus idle and iowait
            long tree = jiffies(ProcessHandle.current().pid());
            for (ProcessHandle h : ProcessHandle.current().descendants().toList()) {
                tree += jiffies(h.pid());
            }
            return new long[] {total, busy, tree};
        }

        /** utime + stime + cutime + cstime of a process (its reaped children included), 0 when it is gone. */
        private static long jiffies(long pid) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }
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
