package io.github.deferlock.redis.internal;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Locale;

/**
 * Durations as people write them, for messages: {@code "366 days"}, {@code "1 day"}, {@code "2 h"}, {@code
 * "90 min"}, {@code "30 s"}, {@code "1,500 ms"}, {@code "250 µs"}, {@code "7 ns"}, {@code "0 s"} — the largest
 * unit that states the value exactly, digits grouped by thousands, as docs/names.md writes limits. Every
 * message that names a duration (a limit, the value refused, a setting already given) goes through {@link
 * #format}, so the same duration reads the same everywhere ({@link Require} uses it). Stateless.
 */
public final class Durations {
    private static final long[] UNIT_NANOS = {
        86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L
    };
    private static final String[] UNIT_NAMES = {" day", " h", " min", " s", " ms", " µs", " ns"};
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private Durations() {}

    /**
     * {@code d} in the largest unit that states it exactly, e.g. {@code "366 days"} for {@code PT8784H}.
     *
     * @throws NullPointerException when {@code d} is null
     */
    public static String format(Duration d) {
        Require.notNull("duration", d);
        if (d.isZero()) {
            return "0 s";
        }
        // seconds * 1e9 + nanos overflows a long past 292 years: exact in BigInteger
        BigInteger nanos =
                BigInteger.valueOf(d.getSeconds()).multiply(NANOS_PER_SECOND).add(BigInteger.valueOf(d.getNano()));
        String sign = nanos.signum() < 0 ? "-" : "";
        BigInteger abs = nanos.abs();
        for (int i = 0; i < UNIT_NANOS.length; i++) {
            BigInteger[] qr = abs.divideAndRemainder(BigInteger.valueOf(UNIT_NANOS[i]));
            if (qr[1].signum() == 0) {
                String n = String.format(Locale.ROOT, "%,d", qr[0]);
                boolean plural = i == 0 && !qr[0].equals(BigInteger.ONE);
                return sign + n + UNIT_NAMES[i] + (plural ? "s" : "");
            }
        }
        throw new AssertionError("every duration is a whole number of nanoseconds");
    }

    /** {@link #format} for a {@link Duration}, anything else as {@code String.valueOf} (for generic messages). */
    public static String describe(Object value) {
        return value instanceof Duration d ? format(d) : String.valueOf(value);
    }
}
