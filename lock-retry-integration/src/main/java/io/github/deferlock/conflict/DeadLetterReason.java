package io.github.deferlock.conflict;

import java.util.Optional;

/**
 * Why {@link ConflictAwareHandler} moved a deferred message to the dead letters of its {@link Deferrals}
 * queue. The stored reason text starts with {@link #text()}, followed by the details; {@link #of(String)} reads
 * it back, so tools compare reasons, not strings. Immutable.
 */
public enum DeadLetterReason {
    /** The lock stayed taken past {@link Deferrals#maxDeferrals()} deferrals ({@link DeferMode#TIMED}). */
    CONFLICT_PERSISTED("lock conflict persisted"),
    /** A message parked behind its key ({@link DeferMode#ORDERED}) failed its handler on every attempt. */
    HANDLER_FAILED("parked message failed"),
    /** The key already had {@link Deferrals#maxParked()} messages parked ({@link ParkedOverflow#DEAD_LETTER}). */
    PARKED_LIMIT("parked limit reached"),
    /** The stored message could not be decoded as the handler's message type. */
    UNDECODABLE("cannot decode the message");

    private final String text;

    DeadLetterReason(String text) {
        this.text = text;
    }

    /** The text a stored reason of this kind starts with. */
    public String text() {
        return text;
    }

    /** The stored reason: {@link #text()} followed by {@code details}. */
    String describe(String details) {
        return text + details;
    }

    /**
     * The kind of a dead letter's stored reason (a {@link io.github.deferlock.delay.DeadLetter#reason()} of the
     * deferrals' queue); empty for a reason this module did not write (a handler that kept failing, for one).
     */
    public static Optional<DeadLetterReason> of(String storedReason) {
        if (storedReason != null) {
            for (DeadLetterReason r : values()) {
                if (storedReason.startsWith(r.text)) {
                    return Optional.of(r);
                }
            }
        }
        return Optional.empty();
    }
}
