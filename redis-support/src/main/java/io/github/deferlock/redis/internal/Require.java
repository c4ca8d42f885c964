package io.github.deferlock.redis.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * One rule, one wording: every builder and every method of the deferlock modules checks its arguments with
 * these helpers, so the same rule always produces the same message. Messages name the setting, show the
 * value and state the limit, e.g. {@code "concurrency must be within [1, 1000], not 0"},
 * {@code "replicas must be at least 1, not 0"}, {@code "ackDelay was already set to 5 ms"}. Durations are
 * written as people write them ({@link Durations#format}: {@code "366 days"}, not {@code "PT8784H"}).
 *
 * <p>"Unset" is {@code null} everywhere: builders keep {@code null} for a setting the user did not give and
 * resolve defaults when they build, never writing a default back into the builder. Stateless.
 */
public final class Require {

    private Require() {}

    /** {@code value} must not be {@code null}: {@code "<what> cannot be null"}. */
    public static <T> T notNull(String what, T value) {
        if (value == null) {
            throw new NullPointerException(what + " cannot be null");
        }
        return value;
    }

    /** A non-empty string: {@code "<what> cannot be empty"}. */
    public static String notEmpty(String what, String value) {
        notNull(what, value);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " cannot be empty");
        }
        return value;
    }

    /** {@code min <= n}: {@code "<what> must be at least <min>, not <n>"}. */
    public static long atLeast(String what, long n, long min) {
        if (n < min) {
            throw new IllegalArgumentException(what + " must be at least " + min + ", not " + n);
        }
        return n;
    }

    /** {@code min <= n} for an int setting. */
    public static int atLeast(String what, int n, int min) {
        return (int) atLeast(what, (long) n, (long) min);
    }

    /** {@code min <= n <= max}: {@code "<what> must be within [<min>, <max>], not <n>"}. */
    public static long within(String what, long n, long min, long max) {
        if (n < min || n > max) {
            throw new IllegalArgumentException(what + " must be within [" + min + ", " + max + "], not " + n);
        }
        return n;
    }

    /** {@code min <= n <= max} for an int setting. */
    public static int within(String what, int n, int min, int max) {
        return (int) within(what, (long) n, (long) min, (long) max);
    }

    /** {@code min <= x <= max} for a real number; NaN and infinities are refused. */
    public static double within(String what, double x, double min, double max) {
        if (!(x >= min && x <= max)) {
            throw new IllegalArgumentException(what + " must be within [" + min + ", " + max + "], not " + x);
        }
        return x;
    }

    /** A duration greater than zero: {@code "<what> must be positive, not 0 s"}. */
    public static Duration positive(String what, Duration d) {
        notNull(what, d);
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, not " + Durations.format(d));
        }
        return d;
    }

    /** A duration of zero or more: {@code "<what> cannot be negative, not -1 s"}. */
    public static Duration notNegative(String what, Duration d) {
        notNull(what, d);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " cannot be negative, not " + Durations.format(d));
        }
        return d;
    }

    /** {@code min <= d <= max}: {@code "<what> must be within [1 ms, 366 days], not 400 days"}. */
    public static Duration within(String what, Duration d, Duration min, Duration max) {
        notNull(what, d);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(what + " must be within [" + Durations.format(min) + ", "
                    + Durations.format(max) + "], not " + Durations.format(d));
        }
        return d;
    }

    /**
     * A setting a builder accepts once: returns {@code value} when {@code current} is {@code null} (unset),
     * otherwise throws {@code IllegalStateException("<what> was already set to <current>")} (a duration written
     * as {@link Durations#format} writes it).
     */
    public static <T> T setOnce(String what, T current, T value) {
        notNull(what, value);
        if (current != null) {
            throw new IllegalStateException(what + " was already set to " + Durations.describe(current));
        }
        return value;
    }

    /** {@code current} if set, else {@code fallback}: how builders resolve a default when they build. */
    public static <T> T orDefault(T current, T fallback) {
        return current != null ? current : Objects.requireNonNull(fallback);
    }
}
