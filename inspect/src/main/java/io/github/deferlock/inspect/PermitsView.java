package io.github.deferlock.inspect;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One permits name under a lock prefix ({@code RedisLocks.permits}, docs/locks.md "Permits"): its live holders
 * by slot. Immutable.
 *
 * @param prefix the lock key prefix
 * @param name the permits name
 * @param key the Redis key ({@code <prefix>{<escaped name>}}, a zset of holders while any is live)
 * @param limit the limit the live holders were granted under; empty when none is live
 * @param holders the live holders, sorted by slot
 * @param waiters how many waiting calls are queued (live or not yet pruned)
 * @param fencingCounter the name's fencing counter (the highest token handed out); empty when never used
 */
public record PermitsView(
        String prefix,
        String name,
        String key,
        OptionalInt limit,
        List<Holder> holders,
        long waiters,
        OptionalLong fencingCounter) {

    /**
     * One live holder.
     *
     * @param slot its slot in [0, limit)
     * @param fencingToken its fencing token
     * @param remainingLease how long its lease still runs (server clock)
     */
    public record Holder(int slot, long fencingToken, Duration remainingLease) {
        /** Validates the components. */
        public Holder {
            Objects.requireNonNull(remainingLease, "remainingLease cannot be null");
        }
    }

    /** Validates the components; copies the holders. */
    public PermitsView {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(limit, "limit cannot be null");
        holders = List.copyOf(Objects.requireNonNull(holders, "holders cannot be null"));
        Objects.requireNonNull(fencingCounter, "fencingCounter cannot be null");
    }
}
