package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Objects;

/**
 * The outcome of one enqueue. Immutable.
 *
 * @param id the job id (the caller's, or a generated 16-character one)
 * @param duplicate true when a job with this id already existed; then nothing was written
 * @param dueAt when the job is due by the Redis server clock; for a duplicate, the existing job's due time,
 *     or null when that job is in flight or dead
 */
public record EnqueueResult(String id, boolean duplicate, Instant dueAt) {
    /** Validates the id. */
    public EnqueueResult {
        Objects.requireNonNull(id, "id cannot be null");
    }
}
