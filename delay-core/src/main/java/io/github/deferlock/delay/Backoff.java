package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Durations;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * How long to wait before the next attempt after a failed one: a fixed delay, an exponential delay with a
 * cap, or an explicit schedule (e.g. 1 min, 5 min, 10 min, 30 min, 1 h — the last step repeats), each
 * optionally with jitter.
 *
 * <pre>{@code
 * Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(15), 2.0).withJitter(0.2);
 * Backoff.schedule(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(10));
 * }</pre>
 *
 * <p>Immutable and threadsafe; {@link #equals(Object)} compares the settings.
 */
public final class Backoff {
    private final Duration initial;
    private final Duration max;
    private final double factor;
    private final List<Duration> steps;
    private final double jitter;

    private Backoff(Duration initial, Duration max, double factor, List<Duration> steps, double jitter) {
        this.initial = initial;
        this.max = max;
        this.factor = factor;
        this.steps = steps;
        this.jitter = jitter;
    }

    /**
     * The same delay after every failed attempt.
     *
     * @throws NullPointerException when {@code delay} is null
     * @throws IllegalArgumentException when {@code delay} is negative or over {@link DelayQueue#MAX_DELAY}
     */
    public static Backoff fixed(Duration delay) {
        return new Backoff(nonNegative(delay, "delay"), delay, 1.0, null, 0);
    }

    /**
     * {@code initial × factor^(attempt-1)}, capped at {@code max}.
     *
     * @throws NullPointerException when {@code initial} or {@code max} is null
     * @throws IllegalArgumentException when a delay is negative or over {@link DelayQueue#MAX_DELAY}, {@code
     *     max < initial} or {@code factor < 1}
     */
    public static Backoff exponential(Duration initial, Duration max, double factor) {
        nonNegative(initial, "initial");
        nonNegative(max, "max");
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "max " + Durations.format(max) + " is shorter than initial " + Durations.format(initial));
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor must be a finite number >= 1, got " + factor);
        }
        return new Backoff(initial, max, factor, null, 0);
    }

    /**
     * An explicit schedule: the n-th failed attempt waits {@code delays[n-1]}; after the last step the last
     * delay repeats.
     *
     * @throws NullPointerException when {@code delays} or one of them is null
     * @throws IllegalArgumentException when there is no delay or one is negative or over {@link
     *     DelayQueue#MAX_DELAY}
     */
    public static Backoff schedule(Duration... delays) {
        Objects.requireNonNull(delays, "delays cannot be null");
        if (delays.length == 0) {
            throw new IllegalArgumentException("a schedule needs at least one delay");
        }
        for (Duration d : delays) {
            nonNegative(d, "delay");
        }
        List<Duration> steps = List.copyOf(Arrays.asList(delays));
        Duration longest = steps.stream().max(Duration::compareTo).orElseThrow();
        return new Backoff(steps.get(0), longest, 1.0, steps, 0);
    }

    /**
     * A copy of this backoff whose delays vary at random by up to {@code ±jitter} of their value (0.2 means
     * 80%–120%); spreads retries of jobs that failed together. 0 turns jitter off.
     *
     * @throws IllegalArgumentException when {@code jitter} is not within [0, 1]
     */
    public Backoff withJitter(double jitter) {
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("jitter must be within [0, 1], got " + jitter);
        }
        return new Backoff(initial, max, factor, steps, jitter);
    }

    /**
     * The delay before the next attempt after failed attempt number {@code attempt} (1 = the first
     * delivery failed); jitter uses {@link ThreadLocalRandom}.
     *
     * @throws IllegalArgumentException when {@code attempt < 1}
     */
    public Duration delay(int attempt) {
        return delay(attempt, ThreadLocalRandom.current());
    }

    /**
     * Like {@link #delay(int)} with the given source of randomness for the jitter.
     *
     * @throws IllegalArgumentException when {@code attempt < 1}
     * @throws NullPointerException when {@code random} is null
     */
    public Duration delay(int attempt, RandomGenerator random) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1, got " + attempt);
        }
        Objects.requireNonNull(random, "random cannot be null");
        Duration base;
        if (steps != null) {
            base = steps.get(Math.min(attempt, steps.size()) - 1);
        } else if (factor == 1.0) {
            base = initial;
        } else {
            double nanos = initial.toNanos() * Math.pow(factor, attempt - 1.0);
            base = nanos >= max.toNanos() ? max : Duration.ofNanos((long) nanos);
        }
        if (jitter == 0.0 || base.isZero()) {
            return base;
        }
        double scale = 1.0 - jitter + 2.0 * jitter * random.nextDouble();
        return Duration.ofNanos((long) (base.toNanos() * scale));
    }

    /** The jitter fraction, 0 when off. */
    public double jitter() {
        return jitter;
    }

    private static Duration nonNegative(Duration d, String what) {
        Objects.requireNonNull(d, what + " cannot be null");
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " cannot be negative, not " + Durations.format(d));
        }
        if (d.compareTo(DelayQueue.MAX_DELAY) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + Durations.format(DelayQueue.MAX_DELAY)
                    + " (DelayQueue.MAX_DELAY), not " + Durations.format(d));
        }
        return d;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Backoff b
                && initial.equals(b.initial)
                && max.equals(b.max)
                && Double.compare(factor, b.factor) == 0
                && Objects.equals(steps, b.steps)
                && Double.compare(jitter, b.jitter) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(initial, max, factor, steps, jitter);
    }

    @Override
    public String toString() {
        String j = jitter == 0 ? "" : ".withJitter(" + jitter + ")";
        if (steps != null) {
            return "Backoff.schedule" + steps + j;
        }
        if (factor == 1.0) {
            return "Backoff.fixed(" + initial + ")" + j;
        }
        return "Backoff.exponential(" + initial + ", " + max + ", " + factor + ")" + j;
    }
}
