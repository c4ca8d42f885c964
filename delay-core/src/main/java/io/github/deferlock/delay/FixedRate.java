package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * {@link ScheduleSpec#fixedRate(Duration, Instant)}: slots at {@code anchor + k * period}. Text: {@code PT5M} (the
 * epoch as anchor) or {@code PT5M@2026-01-01T00:15:00Z}. Immutable and threadsafe.
 */
final class FixedRate implements ScheduleSpec {
    static final String KIND = "rate";
    static final Duration MIN_PERIOD = Duration.ofSeconds(1);

    private final long periodMs;
    private final long anchorMs;
    private final String text;

    FixedRate(Duration period, Instant anchor) {
        Require.within("period", period, MIN_PERIOD, DelayQueue.MAX_DELAY);
        if (period.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("period must be whole milliseconds, not " + period);
        }
        if (anchor.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("anchor must be whole milliseconds, not " + anchor);
        }
        this.periodMs = period.toMillis();
        this.anchorMs = anchor.toEpochMilli();
        this.text = anchorMs == 0 ? period.toString() : period + "@" + anchor;
    }

    /** Reads {@link #text()} back. */
    static FixedRate parse(String text) {
        int at = text.indexOf('@');
        try {
            Duration period = Duration.parse(at < 0 ? text : text.substring(0, at));
            Instant anchor = at < 0 ? Instant.EPOCH : Instant.parse(text.substring(at + 1));
            return new FixedRate(period, anchor);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "rate spec '" + text + "' is not <ISO-8601 duration>[@<ISO-8601 instant>]: " + e.getMessage(), e);
        }
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String text() {
        return text;
    }

    @Override
    public Instant next(Instant after) {
        long a = after.toEpochMilli();
        long k = Math.floorDiv(a - anchorMs, periodMs) + 1;
        return Instant.ofEpochMilli(anchorMs + k * periodMs);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FixedRate f && f.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return KIND + ":" + text;
    }
}
