package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.redis.internal.Durations;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One acquisition in Redis: its token, fencing token and lease. Used as the handle of the handle form and
 * inside the thread-bound form. Threadsafe: the status moves HELD → LOST → RELEASED or HELD → RELEASED by
 * atomic steps, so a renewal result that arrives after the release changes nothing.
 */
class Hold implements LockLease {

    /** What ends or changes a hold in Redis besides the plain release ({@link LockEngine}). */
    interface Ends extends Consumer<Hold> {
        /** {@link LockLease#extend}: the lease in milliseconds, checked. */
        boolean extend(Hold hold, long leaseMillis);

        /** {@link LockLease#releaseAfter}: how long the key stays, in milliseconds (positive). */
        void releaseAfter(Hold hold, long keepMillis);
    }

    static final int HELD = 0;
    static final int LOST = 1;
    static final int RELEASED = 2;

    private final LockClock clock;
    /** Ends a hold: {@link LockEngine#release}. */
    private final Consumer<Hold> releaser;

    final KeyState state;
    final byte[] token;
    final long fencingToken;
    /** The last fencing token of the block reserved by the Redis acquisition this hold descends from. */
    final long fenceLimit;
    /** When the Redis acquisition this hold descends from was sent (hand-offs keep it). */
    final long chainStart;

    final long acquiredAt;
    final long leaseNanos;
    final boolean renewed;

    private final AtomicInteger status = new AtomicInteger(HELD);

    /**
     * The hold this one was handed off to, if any: a renewal result for this hold (sent before the hand-off,
     * answered after it) applies to the successor, which holds the same key and token. Guarded by this.
     */
    private Hold successor;

    /** A loss reported after this hold was finished but before it was handed off; guarded by this. */
    private Throwable lossBeforeHandOff;

    private volatile long validUntil;
    private volatile Throwable lostCause;
    private volatile Throwable lastRenewError;

    Hold(
            LockClock clock,
            Consumer<Hold> releaser,
            KeyState state,
            byte[] token,
            long fencingToken,
            long fenceLimit,
            long sentAt,
            long leaseNanos,
            boolean renewed) {
        this(
                clock,
                releaser,
                state,
                token,
                fencingToken,
                fenceLimit,
                sentAt,
                sentAt,
                sentAt + leaseNanos,
                leaseNanos,
                renewed);
    }

    private Hold(
            LockClock clock,
            Consumer<Hold> releaser,
            KeyState state,
            byte[] token,
            long fencingToken,
            long fenceLimit,
            long chainStart,
            long acquiredAt,
            long validUntil,
            long leaseNanos,
            boolean renewed) {
        this.clock = clock;
        this.releaser = releaser;
        this.state = state;
        this.token = token;
        this.fencingToken = fencingToken;
        this.fenceLimit = fenceLimit;
        this.chainStart = chainStart;
        this.acquiredAt = acquiredAt;
        this.leaseNanos = leaseNanos;
        this.renewed = renewed;
        this.validUntil = validUntil;
    }

    /**
     * The hold a local hand-off gives the next local holder: the same Redis key and token (still held), the
     * next fencing token of the reserved block, and this hold's validity (no renewal was sent for it yet).
     */
    synchronized Hold successor(long now) {
        return successor(now, fencingToken + 1, fenceLimit, chainStart);
    }

    /**
     * The hold that continues this one as a new acquisition with fencing token {@code fence}, which Redis just
     * issued for it while the key held this hold's token: the same key and token, this hold's validity.
     */
    synchronized Hold continued(long now, long fence) {
        return successor(now, fence, fence, now);
    }

    private Hold successor(long now, long fence, long limit, long chain) {
        if (lossBeforeHandOff != null) {
            return null; // Redis refused a renewal of this hold: the key is gone, nothing to hand on
        }
        successor = new Hold(clock, releaser, state, token, fence, limit, chain, now, validUntil, leaseNanos, renewed);
        return successor;
    }

    /**
     * For a loss reported for this hold after it was finished: the hold it was handed off to, which holds the
     * same key and token and is lost instead; null if none (a hand-off still to come is then refused).
     */
    synchronized Hold lostSuccessor(Throwable cause) {
        if (successor == null) {
            lossBeforeHandOff = cause;
        }
        return successor;
    }

    @Override
    public String key() {
        return state.keyString;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public boolean isHeld() {
        return status.get() == HELD && clock.nanoTime() - validUntil < 0;
    }

    @Override
    public void release() {
        releaser.accept(this);
    }

    @Override
    public boolean extend(Duration lease) {
        long millis = LockConfig.checkLease("lease", lease);
        if (renewed) {
            throw new IllegalStateException("lock '" + state.keyString
                    + "' is renewed by the watchdog (acquired without a lease); extend applies to a hold with a lease");
        }
        return ends().extend(this, millis);
    }

    @Override
    public void releaseAfter(Duration keep) {
        if (keep.isNegative() || keep.isZero()) {
            release();
            return;
        }
        long millis = keep.toMillis() == 0 ? 1 : keep.toMillis();
        if (keep.compareTo(LockConfig.MAX_LEASE) > 0) {
            throw new IllegalArgumentException(
                    "keep " + Durations.format(keep) + " is longer than " + Durations.format(LockConfig.MAX_LEASE));
        }
        ends().releaseAfter(this, millis);
    }

    private Ends ends() {
        if (releaser instanceof Ends e) {
            return e;
        }
        throw new UnsupportedOperationException("this hold has no engine to extend it");
    }

    @Override
    public void close() {
        release();
    }

    /** An extension sent at {@code sentAt} succeeded: the hold is valid for {@code leaseNanos} from then. */
    synchronized void extendedAt(long sentAt, long leaseNanos) {
        validUntil = sentAt + leaseNanos;
    }

    long validUntil() {
        return validUntil;
    }

    /** A renewal sent at {@code sentAt} succeeded. */
    void renewedAt(long sentAt) {
        long until = sentAt + leaseNanos;
        Hold next;
        synchronized (this) { // a hand-off copies validUntil under the same monitor: none is missed
            if (until - validUntil > 0) {
                validUntil = until;
            }
            next = successor;
        }
        if (next != null) {
            next.renewedAt(sentAt);
        }
    }

    boolean isActive() {
        return status.get() == HELD;
    }

    boolean isLost() {
        return status.get() == LOST;
    }

    /** Marks the hold lost; false when it was already lost or released. */
    boolean markLost(Throwable cause) {
        if (status.compareAndSet(HELD, LOST)) {
            lostCause = cause;
            return true;
        }
        return false;
    }

    /** Records the cause of a loss found after the hold was finished by someone else than its owner. */
    void markLostQuietly(Throwable cause) {
        lostCause = cause;
    }

    /** Marks the hold released and returns the status it had. */
    int finish() {
        return status.getAndSet(RELEASED);
    }

    Throwable lostCause() {
        return lostCause;
    }

    Throwable lastRenewError() {
        return lastRenewError;
    }

    void renewFailed(Throwable error) {
        lastRenewError = error;
    }

    @Override
    public String toString() {
        return "LockLease[" + state.keyString + ", fencingToken=" + fencingToken + ", "
                + (isHeld() ? "held" : "not held") + "]";
    }
}
