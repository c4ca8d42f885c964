package io.github.deferlock.inspect;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One contended lock of a {@link ConflictReport}: its conflicts in the report's window per strategy, and its
 * state now. Immutable.
 *
 * @param name the lock name
 * @param key the lock's Redis key
 * @param throwConflicts conflicts of {@code OnConflict.THROW} in the window
 * @param sleepRetryConflicts conflicts of {@code OnConflict.SLEEP_RETRY} in the window (one per refused try)
 * @param deferConflicts conflicts of {@code OnConflict.DEFER} in the window: messages deferred or parked, and
 *     deferred runs that met the lock taken again
 * @param waiters contenders of other processes queued for the lock now (its waiter queue)
 * @param parked items parked behind the key now (ordered DEFER)
 * @param oldestParkedAge how long the oldest parked item has waited since its first conflict; empty when
 *     nothing is parked
 * @param holderToken the holder's token now, empty when free
 * @param remainingLease the holder's remaining lease now (the acquisition time is not stored, so how long it
 *     has held is not known); empty when free or without TTL
 */
public record ConflictView(
        String name,
        String key,
        long throwConflicts,
        long sleepRetryConflicts,
        long deferConflicts,
        long waiters,
        long parked,
        Optional<Duration> oldestParkedAge,
        Optional<String> holderToken,
        Optional<Duration> remainingLease) {
    /** Validates the components. */
    public ConflictView {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(oldestParkedAge, "oldestParkedAge cannot be null");
        Objects.requireNonNull(holderToken, "holderToken cannot be null");
        Objects.requireNonNull(remainingLease, "remainingLease cannot be null");
    }

    /** All conflicts in the window. */
    public long total() {
        return throwConflicts + sleepRetryConflicts + deferConflicts;
    }
}
