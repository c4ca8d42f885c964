package io.github.deferlock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The one rule set of a rate limit (N starts per interval, burst b), shared by the per-key limiter (lock-core)
 * and the per-queue limit (delay-core), and the arguments of the GCRA fragment {@code gcra.lua} both scripts
 * include. Limits (docs/names.md): rate within [1, {@value #MAX_RATE}]; interval within [1 ms, 366 days] and at
 * least one microsecond per start (interval / rate ≥ 1 µs); burst within [1, rate]; default burst
 * max(1, rate / 20). Stateless.
 */
public final class RateLimits {
    /** The largest rate (starts per interval). */
    public static final int MAX_RATE = 1_000_000;

    /** The shortest interval. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(1);

    /** The longest interval. */
    public static final Duration MAX_INTERVAL = Duration.ofDays(366);

    private RateLimits() {}

    /**
     * Checks a rate limit.
     *
     * @throws NullPointerException when {@code interval} is null
     * @throws IllegalArgumentException naming the value and the limit when one is out of range
     */
    public static void check(int rate, Duration interval, int burst) {
        Require.within("rate", rate, 1, MAX_RATE);
        Require.within("interval", interval, MIN_INTERVAL, MAX_INTERVAL);
        if (micros(interval) < rate) {
            throw new IllegalArgumentException("rate must be at most one start per microsecond of the interval, not "
                    + rate + " per " + Durations.format(interval));
        }
        Require.within("burst", burst, 1, rate);
    }

    /** The default burst of a rate: max(1, rate / 20), so an idle limiter lets 5 % of the rate start at once. */
    public static int defaultBurst(int rate) {
        return Math.max(1, rate / 20);
    }

    /** How a rate limit reads in messages and views: {@code "200 per 1 s (burst 10)"}. */
    public static String describe(int rate, Duration interval, int burst) {
        return rate + " per " + Durations.format(interval) + " (burst " + burst + ")";
    }

    /**
     * The three ARGV of {@code gcra.lua}: the emission interval T = interval / rate in microseconds (a decimal,
     * exact to 1/1000 µs), the burst, and nothing else; see the fragment.
     */
    public static byte[] emissionMicrosArg(int rate, Duration interval) {
        long micros = micros(interval);
        // thousandths of a microsecond keep T exact enough for any allowed rate (T >= 1 us)
        long milliMicros = Math.round(micros * 1000.0 / rate);
        return (milliMicros / 1000 + "." + String.format("%03d", milliMicros % 1000))
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code n} in decimal ASCII, for a script argument. */
    public static byte[] arg(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static long micros(Duration d) {
        return TimeUnit.NANOSECONDS.toMicros(d.toNanos());
    }
}
