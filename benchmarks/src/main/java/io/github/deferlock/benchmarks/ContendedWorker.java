package io.github.deferlock.benchmarks;

import java.time.Duration;

/**
 * The child JVM of {@code lock.contended.2jvm.*}: opens one side, waits for the shared start time, contends
 * for the shared key and prints {@code RESULT <acquisitions> <late-start ms> <waits in µs, comma separated>}.
 * It prints {@code READY} once its client is open, then waits for the parent to write the start time (epoch
 * ms) into the go file, so a slow client start never eats into the window.
 *
 * <p>Arguments: side, redis URI, threads, key, go file, warm-up ms, measure ms.
 */
public final class ContendedWorker {

    private ContendedWorker() {}

    /** Runs one contender process; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        try {
            String side = args[0];
            Redis redis = Redis.parse(args[1]);
            int threads = Integer.parseInt(args[2]);
            String key = args[3];
            java.nio.file.Path go = java.nio.file.Path.of(args[4]);
            long warmup = Long.parseLong(args[5]);
            long measure = Long.parseLong(args[6]);
            try (LockSide s = LockSide.open(side, redis)) {
                System.out.println("READY");
                System.out.flush();
                while (!java.nio.file.Files.exists(go)) {
                    Thread.sleep(2);
                }
                long startAt = Long.parseLong(java.nio.file.Files.readString(go).trim());
                long late = Math.max(0, System.currentTimeMillis() - startAt);
                long sleep = startAt - System.currentTimeMillis();
                if (sleep > 0) {
                    Thread.sleep(sleep);
                }
                long nowNanos = System.nanoTime();
                long msToNanos = Duration.ofMillis(1).toNanos();
                long offset = (startAt - System.currentTimeMillis()) * msToNanos;
                long from = nowNanos + offset + warmup * msToNanos;
                long to = from + measure * msToNanos;
                LockBenchmarks.Contention c = LockBenchmarks.contendUntil(s, key, threads, from, to);
                System.out.println("RESULT " + c.acquisitions() + " " + late + " "
                        + c.waits().toMicrosText());
            }
            System.out.flush();
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("FAILED " + e);
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }
}
