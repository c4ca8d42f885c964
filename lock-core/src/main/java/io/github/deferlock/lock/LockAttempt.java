package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.Optional;

/**
 * What one acquisition by {@link DistributedLock#attempt(Duration)} did: the current thread got the lock (or
 * already held it), or someone else held it for the whole wait, with the conflict's details. A retry
 * strategy reads the holder's TTL here so it does not sleep past the holder's lease. Immutable.
 *
 * @param name the lock's name as given to {@link RedisLocks#get(String)}
 * @param acquired whether the current thread now holds the lock
 * @param attempts acquire requests that reached Redis (0 when the lock was held in this JVM or re-entered)
 * @param waited how long the attempt took
 * @param holderTtl the holder's remaining TTL as Redis last reported it; empty when acquired or unknown
 */
public record LockAttempt(String name, boolean acquired, int attempts, Duration waited, Optional<Duration> holderTtl) {

    /**
     * Validates the fields.
     *
     * @throws NullPointerException when {@code name}, {@code waited} or {@code holderTtl} is null
     * @throws IllegalArgumentException when {@code attempts} or a duration is negative
     */
    public LockAttempt {
        Require.notNull("name", name);
        Require.atLeast("attempts", attempts, 0);
        Require.notNegative("waited", waited);
        Require.notNull("holderTtl", holderTtl);
        holderTtl.ifPresent(ttl -> Require.notNegative("holderTtl", ttl));
    }

    /**
     * The conflict as an exception, for a caller that promises a lock or an exception.
     *
     * @throws IllegalStateException when the lock was acquired
     */
    public LockConflictException toConflict() {
        if (acquired) {
            throw new IllegalStateException("lock '" + name + "' was acquired: no conflict");
        }
        return new LockConflictException(name, attempts, waited, holderTtl);
    }
}
