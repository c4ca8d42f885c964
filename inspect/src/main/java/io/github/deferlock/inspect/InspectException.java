package io.github.deferlock.inspect;

/** A Redis call of the {@link Inspector} failed; the Jedis exception is the cause. */
public class InspectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message naming the operation and the queue or prefix. */
    public InspectException(String message, Throwable cause) {
        super(message, cause);
    }
}
