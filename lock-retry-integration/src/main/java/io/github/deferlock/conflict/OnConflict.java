package io.github.deferlock.conflict;

/** What happens when a lock is already held by someone else. */
public enum OnConflict {
    /** Fail at once with a {@code LockConflictException}. */
    THROW,
    /** Sleep and retry with a backoff, bounded by attempts and total wait; then fail. */
    SLEEP_RETRY,
    /** Put the request into a delay queue and try again later; the caller's thread moves on at once. */
    DEFER
}
