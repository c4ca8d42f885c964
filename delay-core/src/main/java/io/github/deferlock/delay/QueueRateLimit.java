package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.RateLimits;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A queue's rate limit: at most {@code rate} job starts (claims) per {@code interval} across every worker of
 * every process, of which up to {@code burst} may start at once after a quiet spell ({@link
 * DelayQueue#rateLimit(QueueRateLimit)}). Enforced in the claim script with GCRA on the server's clock: the
 * sustained rate is {@code rate / interval}, and any half-open window of length {@code interval} sees at most
 * {@code rate + burst - 1} starts (docs/delay-queue.md, "Rate limit per queue"). Immutable.
 *
 * <p>Limits (docs/names.md), the same as lock-core's {@code RateLimit}: {@code rate} within [1, 1000000];
 * {@code interval} within [1 ms, 366 days] and at least 1 µs per start (kept to the microsecond); {@code burst}
 * within [1, rate]; default burst max(1, rate / 20).
 *
 * @param rate the starts allowed per interval
 * @param interval the interval
 * @param burst how many starts an idle queue allows at once
 */
public record QueueRateLimit(int rate, Duration interval, int burst) {

    /**
     * Validates the limit.
     *
     * @throws NullPointerException when {@code interval} is null
     * @throws IllegalArgumentException naming the value when one is out of range
     */
    public QueueRateLimit {
        RateLimits.check(rate, Require.notNull("interval", interval), burst);
        interval = Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(TimeUnit.NANOSECONDS.toMicros(interval.toNanos())));
    }

    /**
     * {@code rate} starts per {@code interval} with the default burst, max(1, rate / 20).
     *
     * @throws NullPointerException when {@code interval} is null
     * @throws IllegalArgumentException naming the value when one is out of range
     */
    public static QueueRateLimit of(int rate, Duration interval) {
        Require.within("rate", rate, 1, RateLimits.MAX_RATE);
        return new QueueRateLimit(rate, interval, RateLimits.defaultBurst(rate));
    }

    /**
     * This limit with another burst.
     *
     * @throws IllegalArgumentException when {@code burst} is not within [1, rate]
     */
    public QueueRateLimit withBurst(int burst) {
        return new QueueRateLimit(rate, interval, burst);
    }

    /** {@code "100 per 1 s (burst 5)"}. */
    @Override
    public String toString() {
        return RateLimits.describe(rate, interval, burst);
    }

    /** The stored form: {@code "<rate> <interval in µs> <burst>"} (queue_rate.lua). */
    String stored() {
        return rate + " " + TimeUnit.NANOSECONDS.toMicros(interval.toNanos()) + " " + burst;
    }

    /** Reads the stored form; null for null. */
    static QueueRateLimit parse(String stored) {
        if (stored == null) {
            return null;
        }
        String[] p = stored.split(" ");
        return new QueueRateLimit(
                Integer.parseInt(p[0]),
                Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Long.parseLong(p[1]))),
                Integer.parseInt(p[2]));
    }
}
