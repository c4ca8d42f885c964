package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Objects;

/**
 * The outcome of one enqueue. Immutable.
 *
 * @param id the job id (the caller's, or a generated 16-character one)
 * @param duplicate true when a job with this id already existed and nothing was written: {@link
 *     Outcome#DUPLICATE}, or a replace that found the job in flight or dead ({@link Outcome#RUNNING}, {@link
 *     Outcome#DEAD})
 * @param dueAt when the job is due by the Redis server clock; for a duplicate, the existing job's due time,
 *     or null when that job is in flight or dead; for a replaced job, its due time after the replace
 * @param outcome which case happened
 */
public record EnqueueResult(String id, boolean duplicate, Instant dueAt, Outcome outcome) {

    /** Which case an enqueue met. */
    public enum Outcome {
        /** No job had this id: the job was written. */
        ADDED,
        /** A job with this id existed (due, in flight or dead) and nothing was written: the default. */
        DUPLICATE,
        /**
         * A job with this id was waiting (due or scheduled, not claimed) and was replaced as the job asked
         * ({@link NewJob#replacing}, {@link NewJob#debounce}): its payload and/or due time are the new ones.
         */
        REPLACED,
        /** A replace found the job in flight (claimed by a worker): it is never replaced under its runner. */
        RUNNING,
        /** A replace found the job in the dead letters: nothing was written. */
        DEAD
    }

    /**
     * Validates the components.
     *
     * @throws NullPointerException when {@code id} or {@code outcome} is null
     * @throws IllegalArgumentException when {@code duplicate} does not match {@code outcome}
     */
    public EnqueueResult {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(outcome, "outcome cannot be null");
        boolean nothingWritten = outcome != Outcome.ADDED && outcome != Outcome.REPLACED;
        if (duplicate != nothingWritten) {
            throw new IllegalArgumentException("duplicate is " + duplicate + " for outcome " + outcome);
        }
    }

    /**
     * A result of an enqueue that does not replace: {@link Outcome#ADDED} or {@link Outcome#DUPLICATE}.
     *
     * @deprecated use the canonical constructor, which takes the {@link Outcome}
     */
    @Deprecated
    public EnqueueResult(String id, boolean duplicate, Instant dueAt) {
        this(id, duplicate, dueAt, duplicate ? Outcome.DUPLICATE : Outcome.ADDED);
    }

    /** True when a waiting job of this id was replaced ({@link Outcome#REPLACED}). */
    public boolean replaced() {
        return outcome == Outcome.REPLACED;
    }
}
