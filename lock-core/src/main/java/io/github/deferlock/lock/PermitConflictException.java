package io.github.deferlock.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * No permit of a {@link DistributedPermits} came free for the whole time the caller was willing to wait: a
 * {@link LockConflictException} (so every conflict strategy treats it as a lock conflict) that also names the
 * limit. {@link #key()} is the permits' name. Immutable.
 */
public class PermitConflictException extends LockConflictException {
    private static final long serialVersionUID = 1L;

    private final int limit;

    /**
     * Creates the exception.
     *
     * @param name the permits' name as given to {@link RedisLocks#permits(String, int)}
     * @param limit the permits' limit
     * @param attempts how many acquire requests reached Redis
     * @param waited how long the caller waited in total
     * @param firstHolderTtl how long until the first live holder's lease ends, when Redis reported it
     */
    public PermitConflictException(
            String name, int limit, int attempts, Duration waited, Optional<Duration> firstHolderTtl) {
        super(name, attempts, waited, firstHolderTtl);
        this.limit = limit;
    }

    /** The permits' limit: how many holders there were. */
    public int limit() {
        return limit;
    }

    @Override
    public String getMessage() {
        return "all " + limit + " permits of '" + key() + "' are held (attempts: " + attempts() + ", waited: "
                + waited() + holderTtl().map(t -> ", first holder ttl: " + t).orElse("") + ")";
    }
}
