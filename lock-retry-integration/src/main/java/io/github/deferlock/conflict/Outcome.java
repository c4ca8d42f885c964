package io.github.deferlock.conflict;

/** What {@link ConflictAwareHandler#handle(Object)} did with a message. */
public enum Outcome {
    /** The handler ran under the lock and the lock was released. */
    PROCESSED,
    /** The lock was taken; the message was stored in the delay queue and will run later. */
    DEFERRED,
    /** The message's id was already processed (a redelivery); the handler did not run again. */
    DUPLICATE
}
