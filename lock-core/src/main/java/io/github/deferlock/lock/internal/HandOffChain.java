package io.github.deferlock.lock.internal;

import java.util.concurrent.TimeUnit;

/**
 * Local hand-off of one key: a releasing watchdog holder whose key another local thread waits for passes its
 * Redis hold on (same key and token, the next fencing token of the block the Redis acquisition reserved)
 * instead of releasing it, and the next thread through the {@link LocalGate} takes it. This class holds the
 * rule for when a hold may be handed on and the slot the handed hold waits in. Threadsafe; the slot is
 * written and taken only by a thread that has the key's gate.
 */
final class HandOffChain {

    /**
     * Fencing tokens a watchdog acquisition reserves: its own plus one per local hand-off it may be followed
     * by. So at most {@code BLOCK - 1} local holders follow one another without Redis seeing a release, which
     * bounds how long other processes wait behind a busy JVM.
     */
    static final int BLOCK = 8;

    /** No local hand-off once the Redis acquisition a chain of hand-offs began with is this old. */
    static final long MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * A hold handed off by a releasing local holder to whoever takes the gate next. It carries the user count
     * of the hold it replaced.
     */
    private volatile Hold handed;

    /**
     * Whether {@code hold} (just finished while held) may be handed on at {@code now}: a watchdog hold with
     * tokens left in its block, a chain younger than {@link #MAX_AGE_NANOS}, and at least half a lease of
     * validity left (renewals are working).
     */
    static boolean allows(Hold hold, long now) {
        return hold.renewed
                && hold.fencingToken < hold.fenceLimit
                && now - hold.chainStart < MAX_AGE_NANOS
                && hold.validUntil() - now >= hold.leaseNanos / 2;
    }

    /** Puts {@code next} in the slot for the next thread through the gate; call with the gate. */
    void hand(Hold next) {
        handed = next;
    }

    /** The handed-off hold, if any, now the caller's; call with the gate. */
    Hold take() {
        Hold h = handed;
        if (h != null) {
            handed = null;
        }
        return h;
    }
}
