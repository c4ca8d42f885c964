package io.github.deferlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A fixed-rate arrival generator: arrival k is due at {@code start + k / rate} whether or not earlier ones
 * finished (open loop, no coordinated omission). Worker threads take arrivals in order; the latency of one is
 * its completion minus its intended start, so time spent queued behind slow operations counts.
 */
final class OpenLoop {

    /** The timed operation run by worker {@code thread}; returns the untimed clean-up (e.g. an unlock). */
    @FunctionalInterface
    interface Op {
        Runnable run(int thread) throws Exception;
    }

    /**
     * What a run produced.
     *
     * @param latencies µs from intended start to completion, arrivals of the measured window
     * @param offered the offered rate
     * @param achieved completions inside the window ÷ its length
     */
    record Result(Histogram latencies, double offered, double achieved) {
        boolean saturated() {
            return achieved < 0.95 * offered;
        }

        double percentileMillis(String p) {
            if (latencies.getTotalCount() == 0) {
                return Double.NaN;
            }
            return switch (p) {
                        case "p50" -> latencies.getValueAtPercentile(50);
                        case "p99" -> latencies.getValueAtPercentile(99);
                        case "p999" -> latencies.getValueAtPercentile(99.9);
                        case "max" -> latencies.getMaxValue();
                        default -> throw new IllegalArgumentException(p);
                    }
                    / 1000.0;
        }
    }

    private OpenLoop() {}

    static Result run(double rate, int threads, Duration warmup, Duration measure, Op op) throws InterruptedException {
        long interval = (long) (1e9 / rate);
        long start = System.nanoTime() + 20_000_000L;
        long from = start + warmup.toNanos();
        long to = from + measure.toNanos();
        long drainBy = to + Math.max(measure.toNanos(), Duration.ofSeconds(5).toNanos());
        LinkedBlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
        AtomicLong inWindow = new AtomicLong();
        List<Histogram> hs = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> ts = new ArrayList<>();
        long stop = Long.MIN_VALUE;
        for (int i = 0; i < threads; i++) {
            int n = i;
            Histogram h = new Histogram(3_600_000_000L, 3);
            hs.add(h);
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        Long intended = arrivals.poll(50, TimeUnit.MILLISECONDS);
                        if (intended == null) {
                            if (System.nanoTime() > to) {
                                return;
                            }
                            continue;
                        }
                        if (intended == stop) {
                            return;
                        }
                        Runnable after = op.run(n);
                        long end = System.nanoTime();
                        if (after != null) {
                            after.run();
                        }
                        if (intended >= from && intended < to) {
                            h.recordValue(Math.max(0, (end - intended) / 1000));
                        }
                        if (end >= from && end < to) {
                            inWindow.incrementAndGet();
                        }
                        if (System.nanoTime() > drainBy) {
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        long k = 0;
        while (true) {
            long due = start + k * interval;
            if (due >= to) {
                break;
            }
            long left = due - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(left);
                continue;
            }
            arrivals.add(due);
            k++;
        }
        for (int i = 0; i < threads; i++) {
            arrivals.add(stop);
        }
        for (Thread t : ts) {
            t.join(Math.max(1, (drainBy - System.nanoTime()) / 1_000_000 + 5_000));
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("an open-loop operation failed", errors.get(0));
        }
        Histogram all = new Histogram(3_600_000_000L, 3);
        hs.forEach(all::add);
        long missing =
                arrivals.stream().filter(x -> x != stop && x >= from && x < to).count();
        for (long i = 0; i < missing; i++) {
            all.recordValue((drainBy - from) / 1000);
        }
        return new Result(all, rate, inWindow.get() / (measure.toNanos() / 1e9));
    }

    /** Records p50/p99/p99.9/max of a run under {@code prefix} (e.g. {@code lock.openloop.50.}). */
    static void publish(Results results, String prefix, String side, int round, Result r) {
        for (String p : Metrics.PERCENTILES) {
            results.add(prefix + p, side, r.percentileMillis(p), r.saturated());
        }
        Progress.line(
                "%-36s %-22s offered %s/s achieved %s/s p50 %s p99 %s p99.9 %s max %s ms%s",
                prefix + "*",
                side + " r" + round,
                Report.number(r.offered()),
                Report.number(r.achieved()),
                Report.number(r.percentileMillis("p50")),
                Report.number(r.percentileMillis("p99")),
                Report.number(r.percentileMillis("p999")),
                Report.number(r.percentileMillis("max")),
                r.saturated() ? " SATURATED" : "");
    }
}
