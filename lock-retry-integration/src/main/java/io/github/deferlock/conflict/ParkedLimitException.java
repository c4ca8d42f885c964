package io.github.deferlock.conflict;

/**
 * Thrown by {@link ConflictAwareHandler#handle(Object)} with an ordered DEFER when the message's key already has
 * {@link Deferrals#maxParked()} messages parked and the overflow policy is {@link ParkedOverflow#THROW}. Nothing
 * was stored. Immutable once thrown.
 */
public final class ParkedLimitException extends ConflictHandlingException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final int limit;

    ParkedLimitException(String key, int limit, String queue) {
        super(
                "lock '" + key + "' already has " + limit + " messages parked in deferral queue '" + queue
                        + "' (maxParked " + limit + "); the message was not stored",
                null);
        this.key = key;
        this.limit = limit;
    }

    /** The lock name whose parked work is full. */
    public String key() {
        return key;
    }

    /** The limit, {@link Deferrals#maxParked()}. */
    public int limit() {
        return limit;
    }
}
