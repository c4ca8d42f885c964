package io.github.deferlock.spring;

import io.github.deferlock.conflict.OnConflict;

/**
 * What {@link WithLock} does when the lock is taken: the three {@link OnConflict} strategies as an enum, since
 * an annotation attribute must be one ({@code OnConflict} is a sealed class, so that {@code LockRunner} can
 * refuse {@code DEFER} at compile time).
 */
public enum LockStrategy {
    /** Throw {@code LockConflictException} at once ({@link OnConflict#THROW}). */
    THROW,
    /** Wait for the lock, woken by its release, up to {@code maxWait} ({@link OnConflict#SLEEP_RETRY}). */
    SLEEP_RETRY,
    /** Store the call in the deferral queue and run it later under the lock ({@link OnConflict#DEFER}). */
    DEFER;

    /** The {@link OnConflict} strategy of the same name. */
    public OnConflict onConflict() {
        return OnConflict.valueOf(name());
    }
}
