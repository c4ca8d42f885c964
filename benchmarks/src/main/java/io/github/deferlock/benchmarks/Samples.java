package io.github.deferlock.benchmarks;

import java.util.Arrays;

/** A growable array of {@code long} samples (nanoseconds) with percentiles. Not threadsafe: one per thread. */
final class Samples {

    private long[] values = new long[1024];
    private int size;

    void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    void addAll(Samples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
    }

    int size() {
        return size;
    }

    long[] sorted() {
        long[] copy = Arrays.copyOf(values, size);
        Arrays.sort(copy);
        return copy;
    }

    /** The {@code p}-th percentile (0..100, nearest rank) in milliseconds, NaN when empty. */
    double percentileMillis(double p) {
        long[] s = sorted();
        if (s.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * s.length);
        return s[Math.max(0, Math.min(s.length - 1, rank - 1))] / 1e6;
    }

    double maxMillis() {
        return percentileMillis(100);
    }

    /** The samples as text (microseconds, comma separated), for a child JVM to report to the parent. */
    String toMicrosText() {
        StringBuilder sb = new StringBuilder(size * 4);
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(values[i] / 1000);
        }
        return sb.toString();
    }

    static Samples fromMicrosText(String text) {
        Samples s = new Samples();
        if (text.isBlank()) {
            return s;
        }
        for (String part : text.split(",")) {
            s.add(Long.parseLong(part.trim()) * 1000);
        }
        return s;
    }
}
