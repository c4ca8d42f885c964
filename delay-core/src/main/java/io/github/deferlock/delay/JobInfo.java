package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.Envelope;
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
 * @param priority the job's priority, 0 to {@link DelayQueue#MAX_PRIORITY} ({@link NewJob#withPriority})
 * @param progress the progress its handler last reported ({@link Job#progress(int, String)}), if any
 * @param concurrencyKey the job's concurrency key ({@link NewJob#withConcurrencyKey}), if any
 * @param heldForKey true when the job is due but held back because its concurrency key is at its limit ({@link
 *     DelayQueue#concurrencyKeys()}); it goes back to due when a job of its key ends
 */
public record JobInfo(
        String id,
        JobState state,
        int attempts,
        Optional<Instant> dueAt,
        Optional<Instant> visibleUntil,
        Optional<Instant> diedAt,
        Optional<String> lastError,
        Map<String, String> headers,
        int priority,
        Optional<JobProgress> progress,
        Optional<String> concurrencyKey,
        boolean heldForKey) {
    /** Validates the components. */
    public JobInfo {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(state, "state cannot be null");
        Objects.requireNonNull(dueAt, "dueAt cannot be null");
        Objects.requireNonNull(visibleUntil, "visibleUntil cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(lastError, "lastError cannot be null");
        headers = JobHeaders.snapshot(headers);
        Objects.requireNonNull(progress, "progress cannot be null");
        Objects.requireNonNull(concurrencyKey, "concurrencyKey cannot be null");
    }

    /** A snapshot without a concurrency key (the components before concurrency keys existed). */
    public JobInfo(
            String id,
            JobState state,
            int attempts,
            Optional<Instant> dueAt,
            Optional<Instant> visibleUntil,
            Optional<Instant> diedAt,
            Optional<String> lastError,
            Map<String, String> headers,
            int priority,
            Optional<JobProgress> progress) {
        this(
                id,
                state,
                attempts,
                dueAt,
                visibleUntil,
                diedAt,
                lastError,
                headers,
                priority,
                progress,
                Optional.empty(),
                false);
    }

    /** A snapshot of priority 0 without progress (the components before priorities and progress existed). */
    public JobInfo(
            String id,
            JobState state,
            int attempts,
            Optional<Instant> dueAt,
            Optional<Instant> visibleUntil,
            Optional<Instant> diedAt,
            Optional<String> lastError,
            Map<String, String> headers) {
        this(id, state, attempts, dueAt, visibleUntil, diedAt, lastError, headers, 0, Optional.empty());
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

    /**
     * The snapshot of a stored job.
     *
     * @param lastError its last error, empty when none
     * @param score its due time (waiting), visibility deadline (in flight) or time of death (dead), epoch ms; -1
     *     when missing
     */
    static JobInfo of(String id, Envelope env, String lastError, long score, String progressValue, boolean held) {
        Optional<String> key = Optional.ofNullable(env.key());
        Optional<JobProgress> progress = JobProgress.parse(progressValue);
        Optional<Instant> at = score < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(score));
        Optional<String> error = lastError.isEmpty() ? Optional.empty() : Optional.of(lastError);
        Map<String, String> headers = env.headers();
        return switch (env.state()) {
            case 'f' ->
                new JobInfo(
                        id,
                        JobState.IN_FLIGHT,
                        env.attempts(),
                        Optional.of(Instant.ofEpochMilli(env.dueMs())),
                        at,
                        Optional.empty(),
                        error,
                        headers,
                        env.priority(),
                        progress,
                        key,
                        false);
            case 'x' ->
                new JobInfo(
                        id,
                        JobState.DEAD,
                        env.attempts(),
                        Optional.empty(),
                        Optional.empty(),
                        at,
                        error,
                        headers,
                        env.priority(),
                        progress,
                        key,
                        false);
            default -> // a job scheduled before 1970 waits with score 0 and keeps its requested time
                new JobInfo(
                        id,
                        JobState.DUE,
                        env.attempts(),
                        env.dueMs() == Envelope.NO_DUE ? at : Optional.of(Instant.ofEpochMilli(env.dueMs())),
                        Optional.empty(),
                        Optional.empty(),
                        error,
                        headers,
                        env.priority(),
                        progress,
                        key,
                        held);
        };
    }
}
