package io.github.deferlock.inspect;

import io.github.deferlock.delay.JobProgress;
import io.github.deferlock.delay.JobState;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One job, as the ops tools show it. Immutable.
 *
 * @param queue the queue name
 * @param id the job id
 * @param state where the job is
 * @param attempts deliveries counted so far
 * @param dueAt when it is (or, in flight, was) due; empty for a dead job
 * @param visibleUntil in flight: the visibility deadline
 * @param diedAt dead: when it died
 * @param lastError the last error recorded, if any
 * @param headers the job's headers ({@code Job.headers()}), empty when none
 * @param payload the start of its payload
 * @param priority the job's priority, 0 to 9 ({@code NewJob.withPriority})
 * @param progress the progress its handler last reported ({@code Job.progress}), if any
 */
public record JobView(
        String queue,
        String id,
        JobState state,
        int attempts,
        Optional<Instant> dueAt,
        Optional<Instant> visibleUntil,
        Optional<Instant> diedAt,
        Optional<String> lastError,
        Map<String, String> headers,
        PayloadPreview payload,
        int priority,
        Optional<JobProgress> progress) {
    /** Validates the components and copies the headers. */
    public JobView {
        Objects.requireNonNull(queue, "queue cannot be null");
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(state, "state cannot be null");
        Objects.requireNonNull(dueAt, "dueAt cannot be null");
        Objects.requireNonNull(visibleUntil, "visibleUntil cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(lastError, "lastError cannot be null");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(payload, "payload cannot be null");
        Objects.requireNonNull(progress, "progress cannot be null");
    }

    /** A job of priority 0 without progress (the components before priorities and progress existed). */
    public JobView(
            String queue,
            String id,
            JobState state,
            int attempts,
            Optional<Instant> dueAt,
            Optional<Instant> visibleUntil,
            Optional<Instant> diedAt,
            Optional<String> lastError,
            Map<String, String> headers,
            PayloadPreview payload) {
        this(queue, id, state, attempts, dueAt, visibleUntil, diedAt, lastError, headers, payload, 0, Optional.empty());
    }
}
