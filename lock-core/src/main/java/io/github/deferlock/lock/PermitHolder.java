package io.github.deferlock.lock;

import io.github.deferlock.redis.internal.Require;
import java.time.Duration;

/**
 * One live holder of a {@link DistributedPermits}, as Redis reported it ({@link DistributedPermits#holders()}).
 * Immutable.
 *
 * @param slot the holder's slot in {@code [0, limit)}
 * @param fencingToken the holder's fencing token
 * @param remainingLease how long the holder's lease still runs (by the server's clock)
 */
public record PermitHolder(int slot, long fencingToken, Duration remainingLease) {

    /**
     * Validates the fields.
     *
     * @throws NullPointerException when {@code remainingLease} is null
     * @throws IllegalArgumentException when {@code slot} or {@code remainingLease} is negative
     */
    public PermitHolder {
        Require.atLeast("slot", slot, 0);
        Require.notNegative("remainingLease", remainingLease);
    }
}
