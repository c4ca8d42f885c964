package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of one recurring schedule ({@link Schedules#list()}).
 *
 * @param id the schedule id
 * @param spec the stored spec, {@code <kind>:<text>} (e.g. {@code cron:0 9 * * MON-FRI|Europe/Paris}); the
 *     text is shown even when this process has no parser for its kind
 * @param missed what the schedule does with missed slots
 * @param nextFire the next slot not yet fired; empty when the spec has no more slots, and while {@code
 *     waitingFor} is present
 * @param waitingFor for a {@link ScheduleSpec#fixedDelay fixed delay}: the id of the job of its last fire while
 *     the schedule waits for it to finish (the next fire comes the delay after it finished); else empty. Set
 *     until a ticker sees the job finished, so it may name a job already acked
 */
public record ScheduleInfo(
        String id, String spec, MissedSlots missed, Optional<Instant> nextFire, Optional<String> waitingFor) {

    /** A schedule that waits for no job. */
    public ScheduleInfo(String id, String spec, MissedSlots missed, Optional<Instant> nextFire) {
        this(id, spec, missed, nextFire, Optional.empty());
    }
}
