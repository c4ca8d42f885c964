package io.github.deferlock.lock;

/**
 * The root of every exception lock-core throws. Unchecked; a Redis client failure is kept as the cause.
 * Instances are immutable once thrown.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message. */
    public LockException(String message) {
        super(message);
    }

    /** Creates an exception with a message and the failure that caused it. */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
