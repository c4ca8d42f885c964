package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RateAttempt;
import io.github.deferlock.lock.RateLimitedException;
import io.github.deferlock.lock.RateLimiter;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import java.time.Duration;
import java.util.Optional;

/**
 * A rate limit in front of a key's lock (or permits) for the strategies: a try first takes a start from the
 * {@link RateLimiter}, then the lock. A refusal by the limiter carries the time until its next slot as the
 * "holder's TTL", so SLEEP_RETRY sleeps exactly until then, and an ordered DEFER's drain waits for it as it waits
 * for a release. A start taken and then refused by the lock is spent (the limiter counts starts, not runs).
 * Made per call; not threadsafe.
 */
final class RateGuard extends Guard {
    private final RateLimiter limiter;
    private final DistributedLock inner;
    private boolean refusedByLimiter;
    private Duration retryAfter = Duration.ZERO;

    RateGuard(RateLimiter limiter, DistributedLock inner) {
        this.limiter = limiter;
        this.inner = inner;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public String key() {
        return inner.key();
    }

    @Override
    public LockAttempt attempt(Duration wait) {
        if (inner.isHeldByCurrentThread()) {
            return inner.attempt(wait); // a re-entry takes no start
        }
        long start = System.nanoTime();
        RateAttempt slot = limiter.tryAcquire(wait);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        if (!slot.granted()) {
            refusedByLimiter = true;
            retryAfter = slot.retryAfter();
            return new LockAttempt(name(), false, 1, waited, Optional.of(slot.retryAfter()));
        }
        refusedByLimiter = false;
        Duration left = wait.minus(waited);
        return inner.attempt(left.isNegative() ? Duration.ZERO : left);
    }

    @Override
    LockAttempt attemptBehindParked() {
        if (inner.isHeldByCurrentThread()) {
            return inner.attempt(Duration.ZERO);
        }
        if (parking().size() > 0) { // parked work first: no start is spent on a message that parks anyway
            refusedByLimiter = false;
            return new LockAttempt(name(), false, 0, Duration.ZERO, Optional.empty());
        }
        RateAttempt slot = limiter.tryAcquire();
        if (!slot.granted()) {
            refusedByLimiter = true;
            retryAfter = slot.retryAfter();
            return new LockAttempt(name(), false, 1, Duration.ZERO, Optional.of(slot.retryAfter()));
        }
        refusedByLimiter = false;
        return inner instanceof RedisLock r
                ? r.attemptBehindParked()
                : inner instanceof Guard g ? g.attemptBehindParked() : inner.attempt(Duration.ZERO);
    }

    @Override
    public void unlock() {
        inner.unlock();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return inner.isHeldByCurrentThread();
    }

    @Override
    public long fencingToken() {
        return inner.fencingToken();
    }

    @Override
    LockConflictException conflict(int attempts, Duration waited, Optional<Duration> ttl) {
        if (refusedByLimiter) {
            return new RateLimitedException(limiter.name(), limiter.limit(), attempts, waited, retryAfter);
        }
        if (inner instanceof Guard g) {
            return g.conflict(attempts, waited, ttl);
        }
        return new LockConflictException(name(), attempts, waited, ttl);
    }

    @Override
    Parking parking() {
        return inner instanceof Guard g ? g.parking() : ((RedisLock) inner).parking();
    }

    @Override
    Duration defaultLease() {
        return inner instanceof Guard g ? g.defaultLease() : ((RedisLock) inner).defaultLease();
    }

    @Override
    public String toString() {
        return "RateGuard[" + limiter.name() + " " + limiter.limit() + " before " + inner + "]";
    }
}
