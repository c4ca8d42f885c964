package io.github.deferlock.delay;

/** Where a job is. */
public enum JobState {
    /** Waiting: scheduled for a later time, or due and not yet claimed. */
    DUE,
    /** Claimed by a worker and not yet settled; redelivered when its visibility timeout expires. */
    IN_FLIGHT,
    /** In the dead letters: it used its attempts, could not be decoded, or was dead-lettered on purpose. */
    DEAD
}
