package io.github.deferlock.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One queue's counts, read in one script call, so they are a consistent snapshot. Immutable.
 *
 * @param queue the queue name
 * @param waiting jobs waiting in the due set, including those scheduled for later
 * @param due jobs whose due time has come (a subset of {@code waiting}): the backlog
 * @param inFlight jobs claimed by a worker and not yet acked
 * @param dead dead letters
 * @param oldestDueAge how long the earliest due job has been due; zero when none is due
 * @param at the server time of the snapshot
 */
public record QueueStats(
        String queue, long waiting, long due, long inFlight, long dead, Duration oldestDueAge, Instant at) {
    /** Validates the components. */
    public QueueStats {
        Objects.requireNonNull(queue, "queue cannot be null");
        Objects.requireNonNull(oldestDueAge, "oldestDueAge cannot be null");
        Objects.requireNonNull(at, "at cannot be null");
    }
}
