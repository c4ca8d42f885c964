package io.github.deferlock.delay;

/**
 * The root of every exception delay-core throws. Unchecked; a Redis client failure is kept as the cause.
 * Instances are immutable once thrown.
 */
public class DelayQueueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message and the failure that caused it. */
    public DelayQueueException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Creates an exception with a message. */
    public DelayQueueException(String message) {
        super(message);
    }
}
