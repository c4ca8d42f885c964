package io.github.deferlock.cron;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.github.deferlock.delay.ScheduleSpec;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * A cron {@link ScheduleSpec} with a time zone, parsed by cron-utils: {@code CronSpec.of("0 9 * * MON-FRI",
 * ZoneId.of("Europe/Paris"))} fires at 09:00 Paris time on weekdays.
 *
 * <p>Syntax: five fields ({@code minute hour day-of-month month day-of-week}, Unix cron) or six fields with
 * seconds first ({@code second minute hour day-of-month month day-of-week}, as Spring's {@code @Scheduled}).
 * Names ({@code MON}, {@code JAN}), ranges, lists, steps ({@code *}{@code /15}) and Spring's {@code L}, {@code W},
 * {@code #} and {@code ?} (six fields) are read as cron-utils reads them.
 *
 * <p>Time zone and daylight saving time: slots are wall-clock times in the zone.
 *
 * <ul>
 *   <li>A wall-clock time that does not exist (the hour skipped when clocks go forward, e.g. 02:30 on the last
 *       Sunday of March in Europe/Paris) fires once, shifted forward by the gap (03:30 summer time), the way
 *       {@code java.time} resolves it; when that instant is also a slot of its own (an hourly {@code 30 * * *
 *       *}), it fires once.
 *   <li>A wall-clock time that happens twice (the hour repeated when clocks go back, e.g. 02:30 on the last
 *       Sunday of October) fires once, at its first occurrence (summer time), when the expression names its hour
 *       ({@code 30 2 * * *}). An expression that fires every hour or more often ({@code 30 * * * *}, {@code
 *       *}{@code /20 * * * *}) fires in both occurrences: the repeated hour is an hour of real time.
 * </ul>
 *
 * <p>Stored as {@code cron:<expression>|<zone id>}. Immutable and threadsafe.
 */
public final class CronSpec implements ScheduleSpec {
    /** The kind: {@code cron}. */
    public static final String KIND = "cron";

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser SPRING =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

    /** Transitions looked at for a gap slot when the expression has no later slot of its own. */
    private static final int MAX_TRANSITIONS = 8;

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime execution;

    private CronSpec(String expression, ZoneId zone, ExecutionTime execution) {
        this.expression = expression;
        this.zone = zone;
        this.execution = execution;
    }

    /**
     * The cron {@code expression} in {@code zone}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the expression is not a cron expression of 5 or 6 fields (the
     *     message names it and says why)
     */
    public static CronSpec of(String expression, ZoneId zone) {
        Objects.requireNonNull(expression, "expression cannot be null");
        Objects.requireNonNull(zone, "zone cannot be null");
        String e = expression.strip().replaceAll("\\s+", " ");
        int fields = e.isEmpty() ? 0 : e.split(" ").length;
        if (fields != 5 && fields != 6) {
            throw new IllegalArgumentException("cron expression '" + expression + "' has " + fields
                    + " fields; it must have 5 (minute hour day-of-month month day-of-week) or 6 (second first)");
        }
        Cron cron;
        try {
            cron = (fields == 5 ? UNIX : SPRING).parse(e).validate();
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(
                    "cron expression '" + expression + "' is not valid: " + ex.getMessage(), ex);
        }
        return new CronSpec(e, zone, ExecutionTime.forCron(cron));
    }

    /**
     * The cron {@code expression} in the zone named {@code zoneId}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the expression is not valid, or {@code zoneId} is not a known time
     *     zone (the message names it)
     */
    public static CronSpec of(String expression, String zoneId) {
        Objects.requireNonNull(zoneId, "zone cannot be null");
        return of(expression, zone(zoneId));
    }

    /** Reads {@link #text()} back: {@code <expression>|<zone id>}. */
    static CronSpec parse(String text) {
        int bar = text.lastIndexOf('|');
        if (bar < 0) {
            throw new IllegalArgumentException("cron spec '" + text + "' is not <expression>|<zone id>");
        }
        return of(text.substring(0, bar), zone(text.substring(bar + 1)));
    }

    private static ZoneId zone(String zoneId) {
        try {
            return ZoneId.of(zoneId);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("time zone '" + zoneId + "' is not valid: " + e.getMessage(), e);
        }
    }

    /** The expression, its fields separated by single spaces. */
    public String expression() {
        return expression;
    }

    /** The time zone. */
    public ZoneId zone() {
        return zone;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String text() {
        return expression + "|" + zone.getId();
    }

    @Override
    public Instant next(Instant after) {
        Instant candidate = execution
                .nextExecution(after.atZone(zone))
                .map(ZonedDateTime::toInstant)
                .orElse(null);
        // cron-utils skips a wall-clock time that a gap (clocks going forward) removes; we fire it shifted
        // forward by the gap, as java.time resolves such a time: read the gap's local times in the offset before it
        ZoneRules rules = zone.getRules();
        ZoneOffsetTransition t = rules.nextTransition(after);
        for (int seen = 0; t != null && seen < MAX_TRANSITIONS; seen++) {
            if (candidate != null && !t.getInstant().isBefore(candidate)) {
                break;
            }
            if (t.isGap()) {
                Instant gapStart = t.getInstant();
                Instant gapEnd = gapStart.plus(t.getDuration());
                Instant from = after.isAfter(gapStart.minusMillis(1)) ? after : gapStart.minusMillis(1);
                Optional<ZonedDateTime> inGap = execution.nextExecution(from.atZone(t.getOffsetBefore()));
                if (inGap.isPresent()) {
                    Instant slot = inGap.get().toInstant();
                    if (slot.isAfter(after)
                            && slot.isBefore(gapEnd)
                            && (candidate == null || slot.isBefore(candidate))) {
                        return slot;
                    }
                }
            }
            t = rules.nextTransition(t.getInstant());
        }
        return candidate;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronSpec c && c.text().equals(text());
    }

    @Override
    public int hashCode() {
        return text().hashCode();
    }

    @Override
    public String toString() {
        return KIND + ":" + text();
    }
}
