package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.time.Instant;

/**
 * When a recurring schedule fires ({@link Schedules}): its slots, a strictly increasing series of instants. A
 * spec is stored in Redis as text, {@code <kind>:<text>}, and every process that runs workers reads it back
 * through the {@link ScheduleSpecParser} of its kind, so any of them can compute the next slot.
 *
 * <p>delay-core has the kinds {@code rate} ({@link #fixedRate(Duration)}) and {@code delay} ({@link
 * #fixedDelay(Duration)}); the module {@code deferlock-cron}
 * adds {@code cron} ({@code CronSpec.of("0 9 * * MON-FRI", ZoneId.of("Europe/Paris"))}).
 *
 * <p>Implementations must be immutable and threadsafe, and {@link #next(Instant)} must be a pure function of
 * the spec and its argument: two processes given the same spec text must compute the same slots.
 */
public interface ScheduleSpec {

    /** The kind, the name its {@link ScheduleSpecParser} answers to: letters, digits and {@code -}. */
    String kind();

    /** The text its {@link ScheduleSpecParser} reads back into an equal spec. */
    String text();

    /**
     * The first slot strictly after {@code after}, to the millisecond, or null when the spec has no more slots.
     */
    Instant next(Instant after);

    /**
     * A slot every {@code period}, on the multiples of the period since the epoch (1970-01-01T00:00:00Z): {@code
     * fixedRate(Duration.ofMinutes(5))} fires at :00, :05, :10… of every hour (UTC), in every process alike.
     *
     * @throws NullPointerException when {@code period} is null
     * @throws IllegalArgumentException when {@code period} is shorter than 1 s or over {@link
     *     DelayQueue#MAX_DELAY}, or not whole milliseconds
     */
    static ScheduleSpec fixedRate(Duration period) {
        return fixedRate(period, Instant.EPOCH);
    }

    /**
     * A slot every {@code period}, on {@code anchor} plus a multiple of the period, e.g. {@code
     * fixedRate(Duration.ofHours(1), Instant.parse("2026-01-01T00:15:00Z"))} fires at a quarter past every hour.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code period} is shorter than 1 s or over {@link
     *     DelayQueue#MAX_DELAY}, or either is not whole milliseconds
     */
    static ScheduleSpec fixedRate(Duration period, Instant anchor) {
        Require.notNull("period", period);
        Require.notNull("anchor", anchor);
        return new FixedRate(period, anchor);
    }

    /**
     * A fire {@code delay} after the job of the previous fire finished (acked, dead-lettered or cancelled), never
     * while it is waiting, running or retried: {@code fixedDelay(Duration.ofMinutes(5))} runs a cleanup five
     * minutes after the last one ended, however long each takes. The first fire is {@code delay} after the
     * upsert. The end of a job is seen by the workers' schedule tickers, which look for the fired job once a
     * second while it is not finished ({@link Schedules#FIXED_DELAY_CHECK}), so the next fire comes {@code
     * delay} to {@code delay} + 1 s after the job ended (docs/delay-queue.md, "Fixed delay"). Missed-slot
     * policies do not apply: there is at most one fire outstanding.
     *
     * <p>{@link #next(Instant)} gives {@code after + delay}: the first fire after an upsert at {@code after}.
     *
     * @throws NullPointerException when {@code delay} is null
     * @throws IllegalArgumentException when {@code delay} is shorter than 1 s or over {@link
     *     DelayQueue#MAX_DELAY}, or not whole milliseconds
     */
    static ScheduleSpec fixedDelay(Duration delay) {
        Require.notNull("delay", delay);
        return new FixedDelay(delay);
    }

    /**
     * Reads a stored spec, {@code <kind>:<text>}, through the {@link ScheduleSpecParser} of its kind (found with
     * {@link java.util.ServiceLoader}).
     *
     * @throws NullPointerException when {@code stored} is null
     * @throws IllegalArgumentException when there is no parser for its kind on this process's class path
     *     (module path), or the parser refuses the text
     */
    static ScheduleSpec parse(String stored) {
        return ScheduleSpecs.parse(Require.notNull("spec", stored));
    }

    /** The stored form of {@code spec}: {@code <kind>:<text>}. */
    static String stored(ScheduleSpec spec) {
        return spec.kind() + ":" + spec.text();
    }
}
