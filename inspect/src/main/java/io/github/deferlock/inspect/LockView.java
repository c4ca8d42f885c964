package io.github.deferlock.inspect;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
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
 * @param parked how many items of deferred work (ordered DEFER) are parked behind the key ({@code
 *     <key>:parked}, docs/lock-keys.md "Parked work"); 0 when none
 * @param oldestParkedAge how long the head of the parked FIFO (the oldest item) has been parked, by the
 *     inspector's clock against the clock of the process that parked it (never negative); empty when nothing
 *     is parked or the head records no park time
 * @param permitHolders when the name is used as permits ({@code RedisLocks.permits}): how many live holders
 *     it has (see {@link Inspector#permits} for each one); 0 for a lock
 * @param permitLimit when the name is used as permits: the limit its live holders were granted under; empty
 *     for a lock, or for permits without a live holder
 */
public record LockView(
        String prefix,
        String name,
        String key,
        Optional<String> holderToken,
        Optional<Duration> remainingLease,
        OptionalLong fencingCounter,
        boolean waiters,
        long parked,
        Optional<Duration> oldestParkedAge,
        int permitHolders,
        OptionalInt permitLimit) {
    /** Validates the components. */
    public LockView {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(holderToken, "holderToken cannot be null");
        Objects.requireNonNull(remainingLease, "remainingLease cannot be null");
        Objects.requireNonNull(fencingCounter, "fencingCounter cannot be null");
        Objects.requireNonNull(oldestParkedAge, "oldestParkedAge cannot be null");
        Objects.requireNonNull(permitLimit, "permitLimit cannot be null");
        if (permitHolders < 0) {
            throw new IllegalArgumentException(
                    "permitHolders cannot be negative: " + permitHolders + " for lock key " + key);
        }
        if (parked < 0) {
            throw new IllegalArgumentException("parked cannot be negative: " + parked + " for lock key " + key);
        }
    }

    /**
     * A lock with nothing parked behind it (the components before parked work was shown).
     *
     * @param prefix the lock key prefix
     * @param name the lock name
     * @param key the lock's Redis key
     * @param holderToken the holder's token, empty when free
     * @param remainingLease the holder's remaining lease, empty when free or without TTL
     * @param fencingCounter the lock's fencing counter, empty when never locked
     * @param waiters whether a contender of another process is queued for the lock
     */
    public LockView(
            String prefix,
            String name,
            String key,
            Optional<String> holderToken,
            Optional<Duration> remainingLease,
            OptionalLong fencingCounter,
            boolean waiters) {
        this(prefix, name, key, holderToken, remainingLease, fencingCounter, waiters, 0, Optional.empty());
    }

    /**
     * A lock, with the work parked behind it (the components before permits were shown).
     *
     * @param prefix the lock key prefix
     * @param name the lock name
     * @param key the lock's Redis key
     * @param holderToken the holder's token, empty when free
     * @param remainingLease the holder's remaining lease, empty when free or without TTL
     * @param fencingCounter the lock's fencing counter, empty when never locked
     * @param waiters whether a contender of another process is queued for the lock
     * @param parked how many items are parked behind the key
     * @param oldestParkedAge how long the oldest parked item has waited
     */
    public LockView(
            String prefix,
            String name,
            String key,
            Optional<String> holderToken,
            Optional<Duration> remainingLease,
            OptionalLong fencingCounter,
            boolean waiters,
            long parked,
            Optional<Duration> oldestParkedAge) {
        this(
                prefix,
                name,
                key,
                holderToken,
                remainingLease,
                fencingCounter,
                waiters,
                parked,
                oldestParkedAge,
                0,
                OptionalInt.empty());
    }

    /** Whether someone holds the lock, or, for permits, at least one permit. */
    public boolean held() {
        return holderToken.isPresent() || permitHolders > 0;
    }

    /** Whether the name is used as permits with live holders ({@code RedisLocks.permits}). */
    public boolean isPermits() {
        return permitLimit.isPresent();
    }
}
