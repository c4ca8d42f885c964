package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockLostException;

/**
 * The thread-bound hold of one key: the thread that owns it, its {@link Hold} and the re-entry count. The
 * owner starts and ends it; only the owner reads or changes the hold and the count, so only {@link #owner}
 * is shared (volatile). Other threads ask {@link #isOwnedByCurrentThread()} and see {@code false}.
 */
final class ThreadBoundHold {
    private volatile Thread owner;
    private Hold hold; // owner only
    private int count; // owner only

    /** Whether the calling thread owns the hold. */
    boolean isOwnedByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** The calling thread now holds {@code newHold} once; call right after acquiring it, with the key's gate. */
    void begin(Hold newHold) {
        hold = newHold;
        count = 1;
        owner = Thread.currentThread();
    }

    /**
     * The owner holds once more (no Redis call).
     *
     * @throws LockLostException when the hold was lost or its lease ran out by the local clock: re-entering
     *     would start a critical section another holder may already be in
     */
    void reenter() {
        if (hold.isLost() || !hold.isHeld()) {
            throw new LockLostException(hold.key(), hold.fencingToken, hold.lostCause());
        }
        count++;
    }

    /**
     * The owner holds once less.
     *
     * @return the hold to release when that was the last count (the thread then owns nothing), else null
     * @throws LockLostException when counts remain but the hold was lost (the count still went down)
     */
    Hold countDown() {
        Hold h = hold;
        if (--count > 0) {
            if (h.isLost()) {
                throw new LockLostException(h.key(), h.fencingToken, h.lostCause());
            }
            return null;
        }
        hold = null;
        owner = null;
        return h;
    }

    /** The owner, holding once, now holds {@code next} instead (a continued hold); call as the owner. */
    void replace(Hold next) {
        hold = next;
    }

    /** The owner's hold; call as the owner. */
    Hold hold() {
        return hold;
    }

    /** The owner's count; call as the owner. */
    int count() {
        return count;
    }
}
