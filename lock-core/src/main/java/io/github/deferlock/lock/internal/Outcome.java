package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockConflictException;
import java.time.Duration;
import java.util.Optional;

/**
 * The result of one acquisition: a hold, a re-entry, or a conflict with what the caller needs to report it.
 * Immutable.
 *
 * @param hold the new hold; null for a re-entry or a conflict
 * @param attempts acquire requests that reached Redis
 * @param waitedNanos time from the call to the result
 * @param holderTtlMillis the holder's remaining TTL as Redis last reported it; -1 when unknown
 */
record Outcome(Hold hold, int attempts, long waitedNanos, long holderTtlMillis) {
    static final Outcome REENTERED = new Outcome(null, 0, 0, -1);

    boolean acquired() {
        return hold != null || this == REENTERED;
    }

    LockConflictException conflict(String key) {
        return new LockConflictException(key, attempts, Duration.ofNanos(Math.max(0, waitedNanos)), holderTtl());
    }

    Optional<Duration> holderTtl() {
        return holderTtlMillis >= 0 ? Optional.of(Duration.ofMillis(holderTtlMillis)) : Optional.empty();
    }
}
