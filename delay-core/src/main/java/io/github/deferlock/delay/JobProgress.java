package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The progress a job's handler last reported ({@link Job#progress(int, String)}), as stored in Redis. Kept with
 * the job while it waits for a retry or lies in the dead letters (it says how far its last run got), replaced by
 * the next run's first report, deleted when the job is acked, cancelled or purged. Immutable.
 *
 * @param attempt the delivery that reported it ({@link Job#attempts()})
 * @param at when it was stored (Redis server clock)
 * @param percent 0 to 100
 * @param note the handler's note; empty when none
 */
public record JobProgress(int attempt, Instant at, int percent, String note) {
    /** Validates the components. */
    public JobProgress {
        Objects.requireNonNull(at, "at cannot be null");
        Objects.requireNonNull(note, "note cannot be null");
    }

    /** The stored value {@code <attempt>|<ms>|<percent>|<note>}, or empty when {@code value} is empty or not one. */
    static Optional<JobProgress> parse(String value) {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        String[] parts = value.split("\\|", 4);
        if (parts.length < 4) {
            return Optional.empty();
        }
        try {
            return Optional.of(new JobProgress(
                    Integer.parseInt(parts[0]),
                    Instant.ofEpochMilli(Long.parseLong(parts[1])),
                    Integer.parseInt(parts[2]),
                    parts[3]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
