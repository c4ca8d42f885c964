package io.github.deferlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * A child JVM of {@code lock.contended.Njvm.*}, kept for the whole group and driven over stdin:
 *
 * <ul>
 *   <li>{@code OPEN <side>}: opens the side, answers {@code READY};
 *   <li>{@code GO <key> <start epoch ms> <warm-up ms> <measure ms>}: one thread contends for the key from the
 *       start time, answers {@code RESULT <acquisitions> <hold ns> <holds> <waits: compressed histogram,
 *       base64>};
 *   <li>{@code CLOSE}: closes the side, answers {@code CLOSED};
 *   <li>{@code EXIT}.
 * </ul>
 *
 * Argument: the redis URI. Anything else it prints starts with {@code LOG} or {@code FAILED}.
 */
public final class ContendedWorker {

    private ContendedWorker() {}

    /** Runs one contender process; see the class comment. */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        Redis redis = Redis.parse(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        LockSide side = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "OPEN" -> {
                        side = LockSide.open(f[1], redis);
                        out.println("READY");
                    }
                    case "GO" -> {
                        long startAt = Long.parseLong(f[2]);
                        long offset = (startAt - System.currentTimeMillis()) * 1_000_000L;
                        long from = System.nanoTime() + offset + Long.parseLong(f[3]) * 1_000_000L;
                        long to = from + Long.parseLong(f[4]) * 1_000_000L;
                        LockRuns.sleepUntil(System.nanoTime() + offset);
                        LockRuns.Contention c = LockRuns.contendUntil(side, f[1], 1, from, to);
                        ByteBuffer buf = ByteBuffer.allocate(c.waits().getNeededByteBufferCapacity());
                        int n = c.waits().encodeIntoCompressedByteBuffer(buf);
                        String waits = Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
                        out.println("RESULT " + c.total() + " " + c.holdNanos() + " " + c.holds() + " " + waits);
                    }
                    case "CLOSE" -> {
                        if (side != null) {
                            side.close();
                            side = null;
                        }
                        out.println("CLOSED");
                    }
                    case "EXIT" -> {
                        out.flush();
                        System.exit(0);
                    }
                    default -> out.println("FAILED unknown command " + line);
                }
            } catch (Exception | AssertionError e) {
                out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            }
            out.flush();
        }
        System.exit(0);
    }

    /** The parent's handle on N child JVMs. */
    static final class Pool implements AutoCloseable {
        private final List<Process> children = new ArrayList<>();
        private final List<Writer> stdin = new ArrayList<>();
        private final List<LinkedBlockingQueue<String>> lines = new ArrayList<>();

        static Pool start(int n, Redis redis) throws IOException {
            Pool p = new Pool();
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int i = 0; i < n; i++) {
                Process proc = new ProcessBuilder(
                                java,
                                "-Xmx256m",
                                "-XX:TieredStopAtLevel=1",
                                "-D" + Bench.LOG_LEVEL + "=warn",
                                "-cp",
                                System.getProperty("java.class.path"),
                                ContendedWorker.class.getName(),
                                redis.uri())
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> {
                    try (BufferedReader r =
                            new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            q.add(l);
                        }
                    } catch (IOException e) {
                        q.add("FAILED " + e);
                    }
                    q.add("FAILED exited");
                });
                reader.setDaemon(true);
                reader.start();
                p.children.add(proc);
                p.stdin.add(new java.io.OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8));
                p.lines.add(q);
            }
            return p;
        }

        private void send(int i, String line) throws IOException {
            stdin.get(i).write(line + "\n");
            stdin.get(i).flush();
        }

        private String await(int i, String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String l = lines.get(i).poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (l == null) {
                    throw new IllegalStateException("child " + i + ": no " + prefix + " within " + timeout);
                }
                if (l.startsWith(prefix)) {
                    return l;
                }
                if (l.startsWith("FAILED")) {
                    throw new IllegalStateException("child " + i + ": " + l);
                }
            }
        }

        /** Opens {@code side} in every child. */
        void open(String side) throws IOException, InterruptedException {
            for (int i = 0; i < children.size(); i++) {
                send(i, "OPEN " + side);
            }
            for (int i = 0; i < children.size(); i++) {
                await(i, "READY", Duration.ofSeconds(120));
            }
        }

        /** Closes the open side in every child. */
        void closeSide() throws IOException, InterruptedException {
            for (int i = 0; i < children.size(); i++) {
                send(i, "CLOSE");
            }
            for (int i = 0; i < children.size(); i++) {
                await(i, "CLOSED", Duration.ofSeconds(60));
            }
        }

        /** Runs one window on the first {@code n} children, with the side {@link #open}ed. */
        LockRuns.Contention run(int n, String key, Duration warmup, Duration measure)
                throws IOException, InterruptedException, DataFormatException {
            long startAt = System.currentTimeMillis() + 300;
            for (int i = 0; i < n; i++) {
                send(i, "GO " + key + " " + startAt + " " + warmup.toMillis() + " " + measure.toMillis());
            }
            long[] counts = new long[n];
            Histogram waits = new Histogram(3_600_000_000L, 3);
            long holdNanos = 0;
            long holds = 0;
            for (int i = 0; i < n; i++) {
                String[] f = await(i, "RESULT", warmup.plus(measure).plusSeconds(120))
                        .split(" ");
                counts[i] = Long.parseLong(f[1]);
                holdNanos += Long.parseLong(f[2]);
                holds += Long.parseLong(f[3]);
                if (f.length > 4) {
                    waits.add(Histogram.decodeFromCompressedByteBuffer(
                            ByteBuffer.wrap(Base64.getDecoder().decode(f[4])), 0));
                }
            }
            return new LockRuns.Contention(counts, measure.toNanos() / 1e9, waits, holdNanos, holds);
        }

        @Override
        public void close() {
            for (int i = 0; i < children.size(); i++) {
                try {
                    send(i, "EXIT");
                } catch (IOException e) {
                    // already gone
                }
            }
            for (Process p : children) {
                try {
                    if (!p.waitFor(5, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
