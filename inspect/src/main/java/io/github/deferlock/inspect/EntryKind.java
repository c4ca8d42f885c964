package io.github.deferlock.inspect;

/** What a {@link RegistryEntry} names. */
public enum EntryKind {
    /** A delay queue: announced by its running workers. */
    QUEUE,
    /** The delay queue of a {@code Deferrals} (lock-retry-integration's DEFER strategy). */
    DEFERRALS,
    /** A lock key prefix in use by a {@code RedisLocks}. */
    LOCK_PREFIX
}
