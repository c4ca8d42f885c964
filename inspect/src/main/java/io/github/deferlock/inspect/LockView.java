package io.github.deferlock.inspect;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One lock under a prefix (docs/lock-keys.md). Immutable.
 *
 * @param prefix the lock key prefix
 * @param name the lock name
 * @param key the lock's Redis key ({@code <prefix>{<escaped name>}})
 * @param holderToken the holder's token (32 hex digits), empty when the lock is free
 * @param remainingLease the holder's remaining lease, empty when free or when the key has no TTL
 * @param fencingCounter the lock's fencing counter: the highest fencing token handed out for this name (the
 *     holder's token is at most this; a watchdog hold reserves a block of 8); empty when never locked
 * @param waiters whether a contender of another process is queued for the lock (while it is held, or while
 *     a free lock is reserved for the head of its waiter queue)
 */
public record LockView(
        String prefix,
        String name,
        String key,
        Optional<String> holderToken,
        Optional<Duration> remainingLease,
        OptionalLong fencingCounter,
        boolean waiters) {
    /** Validates the components. */
    public LockView {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(holderToken, "holderToken cannot be null");
        Objects.requireNonNull(remainingLease, "remainingLease cannot be null");
        Objects.requireNonNull(fencingCounter, "fencingCounter cannot be null");
    }

    /** Whether someone holds the lock. */
    public boolean held() {
        return holderToken.isPresent();
    }
}
