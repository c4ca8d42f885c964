package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockAttempt;
import java.time.Duration;
import java.util.Optional;

/**
 * The result of one acquisition: a new hold, a re-entry, or a conflict with its details. Immutable.
 *
 * @param hold the new hold; null for a re-entry or a conflict
 * @param reentered whether the calling thread already held the lock and counted up
 * @param attempts acquire requests that reached Redis
 * @param waitedNanos time from the call to the result
 * @param holderTtlMillis the holder's remaining TTL as Redis last reported it; -1 when unknown
 */
record Outcome(Hold hold, boolean reentered, int attempts, long waitedNanos, long holderTtlMillis) {
    static final Outcome REENTERED = new Outcome(null, true, 0, 0, -1);

    static Outcome acquired(Hold hold, int attempts, long waitedNanos) {
        return new Outcome(hold, false, attempts, waitedNanos, -1);
    }

    static Outcome conflict(int attempts, long waitedNanos, long holderTtlMillis) {
        return new Outcome(null, false, attempts, waitedNanos, holderTtlMillis);
    }

    boolean acquired() {
        return hold != null || reentered;
    }

    Optional<Duration> holderTtl() {
        return holderTtlMillis >= 0 ? Optional.of(Duration.ofMillis(holderTtlMillis)) : Optional.empty();
    }

    /** This outcome as the API reports it for the lock named {@code name}. */
    LockAttempt toAttempt(String name) {
        return new LockAttempt(
                name,
                acquired(),
                attempts,
                Duration.ofNanos(Math.max(0, waitedNanos)),
                acquired() ? Optional.empty() : holderTtl());
    }
}
