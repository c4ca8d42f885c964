package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.PermitLease;

/**
 * One permit in Redis ({@link PermitEngine}): a {@link Hold} with a slot, whose release, extension and renewal
 * go to the permit scripts (its holder records key travels with it). Never handed off. Threadsafe.
 */
final class PermitHold extends Hold implements PermitLease {
    final int slot;
    final int limit;
    /** p{e}:permits, renewed with the holders key. */
    final byte[] records;

    PermitHold(
            LockClock clock,
            Hold.Ends ends,
            KeyState state,
            byte[] token,
            int slot,
            int limit,
            long fencingToken,
            long sentAt,
            long leaseNanos,
            boolean renewed) {
        super(clock, ends, state, token, fencingToken, fencingToken, sentAt, leaseNanos, renewed);
        this.slot = slot;
        this.limit = limit;
        this.records = Keys.permitsKey(state.key);
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public String toString() {
        return "PermitLease[" + key() + ", slot=" + slot + ", fencingToken=" + fencingToken + ", "
                + (isHeld() ? "held" : "not held") + "]";
    }
}
