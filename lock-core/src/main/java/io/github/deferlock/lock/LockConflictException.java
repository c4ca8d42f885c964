package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock was held by someone else for the whole time the caller was willing to wait. Thrown by the
 * forms that promise a lock or an exception ({@link DistributedLock#withLock(java.util.concurrent.Callable)},
 * {@link DistributedLock#acquire(Duration)}); the {@code try...} forms return {@code false} or empty
 * instead. {@link #key()} is the lock's name as given to {@link RedisLocks#get(String)}, from every module
 * that throws this exception (not the Redis key the name maps to). Immutable.
 */
public class LockConflictException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final int attempts;
    private final Duration waited;
    private final Duration holderTtl;

    /**
     * Creates the exception.
     *
     * @param key the lock's name as given to {@link RedisLocks#get(String)}
     * @param attempts how many acquire requests reached Redis (0 when the lock was held in this JVM)
     * @param waited how long the caller waited in total
     * @param holderTtl the remaining TTL of the holder's key when Redis reported it; empty when unknown
     * @throws NullPointerException when {@code key}, {@code waited} or {@code holderTtl} is null
     * @throws IllegalArgumentException when {@code attempts} or a duration is negative
     */
    public LockConflictException(String key, int attempts, Duration waited, Optional<Duration> holderTtl) {
        super(message(
                key, attempts, waited, Require.notNull("holderTtl", holderTtl).orElse(null)));
        Require.atLeast("attempts", attempts, 0);
        Require.notNegative("waited", waited);
        holderTtl.ifPresent(ttl -> Require.notNegative("holderTtl", ttl));
        this.key = key;
        this.attempts = attempts;
        this.waited = waited;
        this.holderTtl = holderTtl.orElse(null);
    }

    /** Like {@link #LockConflictException(String, int, Duration, Optional)} without a holder TTL. */
    public LockConflictException(String key, int attempts, Duration waited) {
        this(key, attempts, waited, Optional.empty());
    }

    private static String message(String key, int attempts, Duration waited, Duration holderTtl) {
        Require.notNull("key", key);
        Require.notNull("waited", waited);
        return "lock '" + key + "' is held by another owner (attempts: " + attempts + ", waited: " + waited
                + (holderTtl == null ? "" : ", holder ttl: " + holderTtl) + ")";
    }

    /** The lock's name as given to {@link RedisLocks#get(String)} (not the Redis key it maps to). */
    public String key() {
        return key;
    }

    /** How many acquire requests reached Redis; 0 when the lock was held in this JVM. */
    public int attempts() {
        return attempts;
    }

    /** How long the caller waited in total. */
    public Duration waited() {
        return waited;
    }

    /** The remaining TTL of the holder's key when the acquire script last reported it. */
    public Optional<Duration> holderTtl() {
        return Optional.ofNullable(holderTtl);
    }
}
