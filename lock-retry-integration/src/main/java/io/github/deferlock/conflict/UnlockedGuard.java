package io.github.deferlock.conflict;

import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.internal.Parking;
import java.time.Duration;
import java.util.Optional;

/**
 * No lock at all, for a {@link RateGuard} that limits starts without excluding anyone ({@link
 * LockRunner#withRateLimit}): every try is granted and the fencing token is 0. Made per call; not threadsafe.
 */
final class UnlockedGuard extends Guard {
    private final String name;
    private boolean held;

    UnlockedGuard(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return name;
    }

    @Override
    public LockAttempt attempt(Duration wait) {
        held = true;
        return new LockAttempt(name, true, 0, Duration.ZERO, Optional.empty());
    }

    @Override
    LockAttempt attemptBehindParked() {
        return attempt(Duration.ZERO);
    }

    @Override
    public void unlock() {
        held = false;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return held;
    }

    /** 0: a rate limit alone excludes nobody, so there is nothing to fence. */
    @Override
    public long fencingToken() {
        return 0;
    }

    @Override
    LockConflictException conflict(int attempts, Duration waited, Optional<Duration> ttl) {
        throw new IllegalStateException("'" + name + "' has no lock: no conflict");
    }

    @Override
    Parking parking() {
        throw new IllegalStateException("'" + name + "' has no lock, so no parked work");
    }

    @Override
    Duration defaultLease() {
        return Duration.ZERO;
    }
}
