package io.github.deferlock.conflict;

import io.github.deferlock.lock.LockConflictException;
import java.time.Duration;
import java.util.Optional;

/**
 * Every permit of a key stayed taken for the whole time the caller was willing to wait: the {@link
 * LockConflictException} of a strategy applied to permits ({@link LockRunner#withPermit}, {@link
 * ConflictAwareHandler.Builder#permits(int)}), so code that catches conflicts catches this one too. Immutable.
 */
public final class PermitsTakenException extends LockConflictException {
    private static final long serialVersionUID = 1L;

    private final int limit;

    /**
     * Creates the exception.
     *
     * @param key the permits' name
     * @param limit how many holders the permits allow
     * @param attempts how many acquire requests reached Redis
     * @param waited how long the caller waited in total
     */
    public PermitsTakenException(String key, int limit, int attempts, Duration waited) {
        super(key, attempts, waited, Optional.empty());
        this.limit = limit;
    }

    /** How many holders the permits allow; all of them were taken. */
    public int limit() {
        return limit;
    }

    @Override
    public String getMessage() {
        return "all " + limit + " permits of '" + key() + "' are taken (attempts: " + attempts() + ", waited: "
                + waited() + ")";
    }
}
