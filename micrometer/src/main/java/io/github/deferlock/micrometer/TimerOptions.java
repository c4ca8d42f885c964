package io.github.deferlock.micrometer;

import io.micrometer.core.instrument.Timer;
import java.util.Arrays;
import java.util.Objects;

/**
 * How the timers of this module publish their distribution: client-side percentiles and/or a percentile
 * histogram (for server-side aggregation, e.g. Prometheus {@code histogram_quantile}). The default publishes
 * neither: count, total and max only, the cheapest. A registry's own {@code MeterFilter}s (in Spring Boot the
 * {@code management.metrics.distribution.*} properties) apply on top.
 *
 * <pre>{@code
 * TimerOptions timers = TimerOptions.DEFAULT.percentiles(0.5, 0.99).histogram(true);
 * }</pre>
 *
 * <p>Immutable and threadsafe.
 */
public final class TimerOptions {

    /** No percentiles, no histogram. */
    public static final TimerOptions DEFAULT = new TimerOptions(new double[0], false);

    private final double[] percentiles;
    private final boolean histogram;

    private TimerOptions(double[] percentiles, boolean histogram) {
        this.percentiles = percentiles;
        this.histogram = histogram;
    }

    /**
     * These options with client-side {@code percentiles} (each in [0, 1], e.g. 0.99).
     *
     * @throws IllegalArgumentException when a percentile is outside [0, 1]
     */
    public TimerOptions percentiles(double... percentiles) {
        Objects.requireNonNull(percentiles, "percentiles cannot be null");
        for (double p : percentiles) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("percentile must be within [0, 1], not " + p);
            }
        }
        return new TimerOptions(percentiles.clone(), histogram);
    }

    /** These options with the percentile histogram on or off. */
    public TimerOptions histogram(boolean on) {
        return new TimerOptions(percentiles, on);
    }

    /** The client-side percentiles (a copy). */
    public double[] percentiles() {
        return percentiles.clone();
    }

    /** Whether a percentile histogram is published. */
    public boolean histogram() {
        return histogram;
    }

    Timer.Builder apply(Timer.Builder builder) {
        if (percentiles.length > 0) {
            builder.publishPercentiles(percentiles);
        }
        return builder.publishPercentileHistogram(histogram);
    }

    @Override
    public String toString() {
        return "TimerOptions[percentiles=" + Arrays.toString(percentiles) + ", histogram=" + histogram + "]";
    }
}
