package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one job, from {@link DelayQueue#get(String)}. Immutable.
 *
 * @param id the job id
 * @param state where the job is
 * @param attempts deliveries counted so far (0 before the first)
 * @param dueAt for {@link JobState#DUE}: when it is due; for {@link JobState#IN_FLIGHT}: when the current
 *     delivery was due; empty for {@link JobState#DEAD}
 * @param visibleUntil for {@link JobState#IN_FLIGHT}: the visibility deadline, else empty
 * @param diedAt for {@link JobState#DEAD}: when it moved to the dead letters, else empty
 * @param lastError the last error recorded for the job, if any
 * @param headers the job's headers ({@link Job#headers()}), empty when none; unmodifiable
 */
public record JobInfo(
        String id,
        JobState state,
        int attempts,
        Optional<Instant> dueAt,
        Optional<Instant> visibleUntil,
        Optional<Instant> diedAt,
        Optional<String> lastError,
        Map<String, String> headers) {
    /** Validates the components. */
    public JobInfo {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(state, "state cannot be null");
        Objects.requireNonNull(dueAt, "dueAt cannot be null");
        Objects.requireNonNull(visibleUntil, "visibleUntil cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(lastError, "lastError cannot be null");
        headers = JobHeaders.snapshot(headers);
    }

    /** A snapshot without headers (the components before headers existed). */
    public JobInfo(
            String id,
            JobState state,
            int attempts,
            Optional<Instant> dueAt,
            Optional<Instant> visibleUntil,
            Optional<Instant> diedAt,
            Optional<String> lastError) {
        this(id, state, attempts, dueAt, visibleUntil, diedAt, lastError, Map.of());
    }
}
