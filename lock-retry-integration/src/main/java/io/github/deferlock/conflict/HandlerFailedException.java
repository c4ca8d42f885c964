package io.github.deferlock.conflict;

/**
 * Wraps a checked exception thrown by a user's handler or critical section, so it reaches the caller
 * without being swallowed. The original is the {@link #getCause() cause}. Immutable once thrown.
 */
public final class HandlerFailedException extends ConflictHandlingException {
    private static final long serialVersionUID = 1L;

    /** Wraps {@code cause}, thrown while the lock on {@code key} was held. */
    public HandlerFailedException(String key, Throwable cause) {
        super("the work under lock '" + key + "' failed: " + cause, cause);
    }
}
