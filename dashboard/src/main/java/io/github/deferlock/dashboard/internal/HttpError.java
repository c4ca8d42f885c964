package io.github.deferlock.dashboard.internal;

/** A request the dashboard refuses: the status and the message the JSON error body carries. */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    /** A refusal with {@code status} and {@code message}. */
    public HttpError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }
}
