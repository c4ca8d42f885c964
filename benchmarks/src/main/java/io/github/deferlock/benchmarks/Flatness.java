package io.github.deferlock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The flatness check of the endurance run (issue 29): whether a curve (keys, used_memory, heap after GC, threads,
 * connections) grew after the warm-up. It compares the median of the samples in the first window after the
 * warm-up, {@code [warmup, warmup + window)}, with the median of the samples in the last window of the run,
 * {@code [end - window, end]} (a sample taken a little after {@code end} counts in it); the curve grew when the last median exceeds the first by more than {@code limit}
 * (a fraction of the first median) and by more than {@code slack} (an absolute amount, for small counts). Samples
 * taken during the warm-up are never looked at. Medians, not single samples, so one GC-less sample or one burst
 * of connections does not decide.
 */
final class Flatness {

    /** The growth allowed from the first window after warm-up to the last: 5 %. */
    static final double LIMIT = 0.05;

    private Flatness() {}

    /**
     * One sample of a curve.
     *
     * @param seconds seconds since the load started
     * @param value the value sampled
     */
    record Point(double seconds, double value) {}

    /**
     * The verdict on one curve.
     *
     * @param curve its name
     * @param first median of the first window after warm-up
     * @param firstSamples samples in that window
     * @param last median of the last window
     * @param lastSamples samples in that window
     * @param growth {@code (last - first) / first}; NaN when first is 0
     * @param limit the growth allowed
     * @param slack the absolute growth allowed besides
     * @param grew whether the curve grew beyond both
     */
    record Verdict(
            String curve,
            double first,
            int firstSamples,
            double last,
            int lastSamples,
            double growth,
            double limit,
            double slack,
            boolean grew) {

        /** One line for the console. */
        String line() {
            return String.format(
                    Locale.ROOT,
                    "%-24s first %14.1f (%d) last %14.1f (%d) growth %s  %s",
                    curve,
                    first,
                    firstSamples,
                    last,
                    lastSamples,
                    Double.isNaN(growth) ? "n/a" : String.format(Locale.ROOT, "%+.1f %%", growth * 100),
                    grew ? "GREW" : "flat");
        }
    }

    /**
     * Judges one curve.
     *
     * @param points its samples, any order
     * @param warmup seconds of warm-up: the first window starts here
     * @param end seconds at the end of the run: the last window ends here
     * @param window seconds of each window
     * @param limit growth allowed, as a fraction of the first median
     * @param slack absolute growth allowed besides (0 for none)
     * @throws IllegalArgumentException when a window holds no sample, or the windows overlap
     */
    static Verdict check(
            String curve, List<Point> points, double warmup, double end, double window, double limit, double slack) {
        if (warmup + window > end - window) {
            throw new IllegalArgumentException("curve " + curve + ": the first window [" + warmup + ", "
                    + (warmup + window) + ") and the last [" + (end - window) + ", " + end + "] overlap");
        }
        List<Double> a = new ArrayList<>();
        List<Double> b = new ArrayList<>();
        for (Point p : points) {
            if (p.seconds() >= warmup && p.seconds() < warmup + window) {
                a.add(p.value());
            }
            if (p.seconds() >= end - window) { // the sample at the end may come a few ms late
                b.add(p.value());
            }
        }
        if (a.isEmpty() || b.isEmpty()) {
            throw new IllegalArgumentException("curve " + curve + ": no sample in the "
                    + (a.isEmpty()
                            ? "first window [" + warmup + ", " + (warmup + window) + ")"
                            : "last window [" + (end - window) + ", " + end + "]"));
        }
        double first = median(a);
        double last = median(b);
        double growth = first == 0 ? Double.NaN : (last - first) / first;
        boolean grew = last - first > Math.max(limit * Math.abs(first), slack);
        return new Verdict(curve, first, a.size(), last, b.size(), growth, limit, slack, grew);
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
