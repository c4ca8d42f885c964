package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.internal.Parking;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A limit other than the plain lock, seen as a {@link DistributedLock} so that {@link ConflictDispatch} and
 * {@link ConflictAwareHandler} apply the three strategies to it unchanged: a key's permits ({@link PermitGuard})
 * or a rate limit in front of a lock ({@link RateGuard}). One instance serves one call on one thread (a
 * handling, a drain step): it is made per call, like {@code locks.get(key)}, and is not threadsafe. Only what
 * the strategies use is supported; the rest throws {@link UnsupportedOperationException}.
 */
abstract class Guard implements DistributedLock {

    /** The exception for a limit that stayed reached for the whole wait, worded for the limit. */
    abstract LockConflictException conflict(int attempts, Duration waited, Optional<Duration> retryAfter);

    /** The parked work of the guarded key (ordered DEFER). */
    abstract Parking parking();

    /** One try that is refused while work is parked behind the key, so a new message parks behind it. */
    abstract LockAttempt attemptBehindParked();

    /** The lease of a hold taken without an explicit one; the done marker waits out Redis for half of it. */
    abstract Duration defaultLease();

    @Override
    public final boolean tryLock() {
        return attempt(Duration.ZERO).acquired();
    }

    @Override
    public final boolean tryLock(Duration wait) {
        return attempt(wait).acquired();
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) {
        throw unsupported("tryLock(wait, lease)");
    }

    @Override
    public void lock() {
        throw unsupported("lock()");
    }

    @Override
    public void lockInterruptibly() {
        throw unsupported("lockInterruptibly()");
    }

    @Override
    public final int holdCount() {
        return isHeldByCurrentThread() ? 1 : 0;
    }

    @Override
    @Deprecated
    public final Optional<Duration> lastHolderTtl() {
        return Optional.empty();
    }

    @Override
    public <T> T withLock(Callable<T> body) {
        throw unsupported("withLock");
    }

    @Override
    public void withLock(Runnable body) {
        throw unsupported("withLock");
    }

    @Override
    public <T> T withLock(Duration wait, Callable<T> body) {
        throw unsupported("withLock");
    }

    @Override
    public void withLock(Duration wait, Runnable body) {
        throw unsupported("withLock");
    }

    @Override
    public LockLease acquire(Duration wait) {
        throw unsupported("acquire");
    }

    @Override
    public LockLease acquire(Duration wait, Duration lease) {
        throw unsupported("acquire");
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration wait) {
        throw unsupported("tryAcquire");
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration wait, Duration lease) {
        throw unsupported("tryAcquire");
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(
                what + " is not offered by " + getClass().getSimpleName() + " '" + name() + "'");
    }
}
