package io.github.deferlock.lock;

import java.util.Objects;

/**
 * A hold ended before its owner released it: a renewal was refused or kept failing until the lease ran out,
 * or the release found the key gone or owned by someone else. Mutual exclusion may have been broken for
 * the end of the critical section; a protected resource that checks {@link #fencingToken()} has rejected
 * any newer holder's stale competitor. Immutable.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final long fencingToken;

    /**
     * Creates the exception.
     *
     * @param key the Redis key of the lock
     * @param fencingToken the fencing token of the lost hold
     * @param cause what showed the loss, or {@code null}
     * @throws NullPointerException when {@code key} is null
     */
    public LockLostException(String key, long fencingToken, Throwable cause) {
        super(
                "lock '" + Objects.requireNonNull(key, "key cannot be null") + "' (fencing token " + fencingToken
                        + ") was lost before it was released",
                cause);
        this.key = key;
        this.fencingToken = fencingToken;
    }

    /** The Redis key of the lock. */
    public String key() {
        return key;
    }

    /** The fencing token of the lost hold. */
    public long fencingToken() {
        return fencingToken;
    }
}
