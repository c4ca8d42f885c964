package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.PermitConflictException;
import io.github.deferlock.lock.PermitLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import java.time.Duration;
import java.util.Optional;

/**
 * A key's permits ({@link RedisLocks#permits(String, int)}) for the strategies: a hold is one permit, taken and
 * returned by the calling thread. Its parked work (ordered DEFER) lives beside the permits, in the key's slot,
 * as a lock's does. Made per call; not threadsafe.
 */
final class PermitGuard extends Guard {
    private final DistributedPermits permits;
    private final RedisLock view; // the same name's lock object: for its parked work and lease; never acquired
    private PermitLease lease;

    PermitGuard(RedisLocks locks, String key, int limit) {
        this.permits = locks.permits(key, limit);
        this.view = (RedisLock) locks.get(key);
    }

    @Override
    public String name() {
        return permits.name();
    }

    @Override
    public String key() {
        return permits.key();
    }

    /** The most holders at once. */
    int limit() {
        return permits.limit();
    }

    @Override
    public LockAttempt attempt(Duration wait) {
        if (isHeldByCurrentThread()) {
            return new LockAttempt(name(), true, 0, Duration.ZERO, Optional.empty());
        }
        long start = System.nanoTime();
        Optional<PermitLease> got = permits.tryAcquire(wait);
        got.ifPresent(l -> lease = l);
        return new LockAttempt(
                name(), got.isPresent(), 1, Duration.ofNanos(System.nanoTime() - start), Optional.empty());
    }

    @Override
    LockAttempt attemptBehindParked() {
        if (!isHeldByCurrentThread() && parking().size() > 0) {
            return new LockAttempt(name(), false, 0, Duration.ZERO, Optional.empty());
        }
        return attempt(Duration.ZERO);
    }

    @Override
    public void unlock() {
        PermitLease l = lease;
        if (l == null) {
            throw new IllegalMonitorStateException("no permit of '" + name() + "' is held by this call");
        }
        lease = null;
        l.release();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return lease != null && lease.isHeld();
    }

    @Override
    public long fencingToken() {
        PermitLease l = lease;
        if (l == null) {
            throw new IllegalMonitorStateException("no permit of '" + name() + "' is held by this call");
        }
        return l.fencingToken();
    }

    @Override
    LockConflictException conflict(int attempts, Duration waited, Optional<Duration> retryAfter) {
        return new PermitConflictException(name(), permits.limit(), attempts, waited, retryAfter);
    }

    @Override
    Parking parking() {
        return view.parking();
    }

    @Override
    Duration defaultLease() {
        return view.defaultLease();
    }

    @Override
    public String toString() {
        return "PermitGuard[" + name() + ", limit " + permits.limit() + "]";
    }
}
