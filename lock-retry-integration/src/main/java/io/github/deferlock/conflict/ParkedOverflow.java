package io.github.deferlock.conflict;

/**
 * What an ordered deferral ({@link DeferMode#ORDERED}) does with a message for a key that already has {@link
 * Deferrals#maxParked()} messages parked ({@link Deferrals.Builder#onParkedOverflow}). Never silent loss.
 * Immutable.
 */
public enum ParkedOverflow {
    /**
     * {@link ConflictAwareHandler#handle(Object)} throws {@link ParkedLimitException}; nothing is stored, so the
     * caller keeps the message (a consumer does not commit it and gets it again). Keeps the key's order. The
     * default.
     */
    THROW,
    /**
     * The message goes to the dead letters of the deferrals' queue with the reason {@link
     * DeadLetterReason#PARKED_LIMIT}, and {@code handle} returns {@link Outcome#DEFERRED}: the caller moves on,
     * and the message runs only when requeued from the dead letters (then behind the key's parked work).
     */
    DEAD_LETTER
}
