package io.github.deferlock.conflict;

/**
 * The root of the exceptions this module throws itself (today {@link HandlerFailedException}). A lock that
 * stays taken is reported by lock-core's {@link io.github.deferlock.lock.LockConflictException} and a lost
 * lock by {@link io.github.deferlock.lock.LockLostException}, whatever module the call went through.
 * Immutable once thrown.
 */
public class ConflictHandlingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with {@code message} and {@code cause} (may be null). */
    public ConflictHandlingException(String message, Throwable cause) {
        super(message, cause);
    }
}
