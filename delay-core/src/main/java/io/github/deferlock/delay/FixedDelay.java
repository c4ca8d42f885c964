package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * {@link ScheduleSpec#fixedDelay(Duration)}: a fire {@code delay} after the job of the previous fire finished. Its
 * slots are not a series the spec alone computes: {@link #next(Instant)} gives only the first fire after an
 * upsert; every later one is planned by {@link Schedules} from the moment its ticker found the previous job gone
 * (schedule_due.lua). Text: an ISO-8601 duration, {@code PT5M}. Immutable and threadsafe.
 */
final class FixedDelay implements ScheduleSpec {
    static final String KIND = "delay";

    private final long delayMs;
    private final String text;

    FixedDelay(Duration delay) {
        Require.within("delay", delay, FixedRate.MIN_PERIOD, DelayQueue.MAX_DELAY);
        if (delay.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("delay must be whole milliseconds, not " + delay);
        }
        this.delayMs = delay.toMillis();
        this.text = delay.toString();
    }

    /** Reads {@link #text()} back. */
    static FixedDelay parse(String text) {
        try {
            return new FixedDelay(Duration.parse(text));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "delay spec '" + text + "' is not an ISO-8601 duration: " + e.getMessage(), e);
        }
    }

    /** The delay, ms. */
    long delayMs() {
        return delayMs;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String text() {
        return text;
    }

    /** {@code after + delay}: the first fire of a schedule upserted at {@code after}. */
    @Override
    public Instant next(Instant after) {
        return after.plusMillis(delayMs);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FixedDelay f && f.delayMs == delayMs;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(delayMs);
    }

    @Override
    public String toString() {
        return KIND + ":" + text;
    }
}
