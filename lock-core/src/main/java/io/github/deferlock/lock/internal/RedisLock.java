package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockAttempt;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import redis.clients.jedis.UnifiedJedis;

/** The {@link DistributedLock} of one name in one engine. Threadsafe; holds no state of its own. */
public final class RedisLock implements DistributedLock {
    private final LockEngine engine;
    private final String name;
    private final byte[] key;
    private final String keyString;

    /** Creates the lock; validates the name. */
    public RedisLock(LockEngine engine, String name) {
        this.engine = engine;
        this.key = engine.lockKey(name);
        this.name = name;
        this.keyString = new String(key, StandardCharsets.UTF_8);
        engine.checkOpen();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return keyString;
    }

    /** The lease of a hold taken without an explicit one (the watchdog renews it). */
    public Duration defaultLease() {
        return engine.config().defaultLease();
    }

    private long defaultLeaseMillis() {
        return engine.config().defaultLease().toMillis();
    }

    private boolean watchdog() {
        return engine.config().watchdog();
    }

    @Override
    public boolean tryLock() {
        return uninterruptibly(0, false, defaultLeaseMillis(), watchdog()).acquired();
    }

    @Override
    public boolean tryLock(Duration wait) {
        return uninterruptibly(nanos(wait), false, defaultLeaseMillis(), watchdog())
                .acquired();
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) {
        long waitNanos = nanos(wait);
        return uninterruptibly(waitNanos, false, LockConfig.checkLease("lease", lease), false)
                .acquired();
    }

    @Override
    public void lock() {
        uninterruptibly(0, true, defaultLeaseMillis(), watchdog());
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockThread(0, true, defaultLeaseMillis(), watchdog());
    }

    private static long nanos(Duration wait) {
        LockConfig.checkWait(wait);
        try {
            return wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    private Outcome uninterruptibly(long waitNanos, boolean forever, long leaseMillis, boolean renew) {
        try {
            return lockThread(waitNanos, forever, leaseMillis, renew);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private LockException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new LockException("interrupted while waiting for lock '" + keyString + "'", e);
    }

    private Outcome lockThread(long waitNanos, boolean forever, long leaseMillis, boolean renew)
            throws InterruptedException {
        return lockThread(waitNanos, forever, leaseMillis, renew, false);
    }

    private Outcome lockThread(long waitNanos, boolean forever, long leaseMillis, boolean renew, boolean yieldToParked)
            throws InterruptedException {
        KeyState held = engine.existing(name);
        if (held != null && held.threadHold.isOwnedByCurrentThread()) {
            held.threadHold.reenter();
            return Outcome.REENTERED;
        }
        Outcome outcome = engine.acquire(name, key, waitNanos, forever, leaseMillis, renew, yieldToParked);
        engine.lastConflicts().record(name, outcome);
        Hold hold = outcome.hold();
        if (hold != null) {
            hold.state.threadHold.begin(hold);
        }
        return outcome;
    }

    /** The thread-bound hold of the current thread, or {@code IllegalMonitorStateException}. */
    private ThreadBoundHold ownHold() {
        KeyState st = engine.existing(name);
        if (st == null || !st.threadHold.isOwnedByCurrentThread()) {
            throw new IllegalMonitorStateException("lock '" + keyString + "' is not held by the current thread");
        }
        return st.threadHold;
    }

    @Override
    public void unlock() {
        Hold last = ownHold().countDown();
        if (last != null) {
            engine.release(last);
        }
    }

    @Override
    public boolean isHeldByCurrentThread() {
        KeyState st = engine.existing(name);
        return st != null
                && st.threadHold.isOwnedByCurrentThread()
                && st.threadHold.hold().isHeld();
    }

    @Override
    public int holdCount() {
        KeyState st = engine.existing(name);
        return st != null && st.threadHold.isOwnedByCurrentThread() ? st.threadHold.count() : 0;
    }

    @Override
    public long fencingToken() {
        return ownHold().hold().fencingToken;
    }

    @Override
    public LockAttempt attempt(Duration wait) {
        return uninterruptibly(nanos(wait), false, defaultLeaseMillis(), watchdog())
                .toAttempt(name);
    }

    /**
     * Tries once, like {@code attempt(Duration.ZERO)}, but is refused while work is parked behind the key
     * ({@link #parking()}), even when the key is free: a new message of an ordered deferral must not overtake
     * the parked ones. Re-entry by the holding thread is granted as usual. Not API: for lock-retry-integration.
     */
    public LockAttempt attemptBehindParked() {
        try {
            return lockThread(0, false, defaultLeaseMillis(), watchdog(), true).toAttempt(name);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * The Redis token of the current thread's hold (what the lock key holds while it is held). Not API: for
     * lock-retry-integration's drain ({@link Parking#next}).
     *
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     */
    public byte[] holdToken() {
        return ownHold().hold().token.clone();
    }

    /**
     * Continues the current thread's hold, held once, as a new acquisition with fencing token {@code fence},
     * which {@link Parking#next} issued with the key held by this hold and no other process queued for it: the
     * thread goes on holding the key, with the new fencing token, without a release and an acquisition. Not API:
     * for lock-retry-integration's drain.
     *
     * @return false when refused (the engine is closed, another local thread waits for the key, the hold is
     *     re-entered, has an explicit lease or has less than half its lease left): nothing changed, the caller
     *     releases as usual
     * @throws IllegalMonitorStateException when the current thread does not hold this lock
     */
    public boolean continueHold(long fence) {
        ThreadBoundHold own = ownHold();
        if (own.count() != 1) {
            return false;
        }
        Hold next = engine.continueHold(own.hold(), fence);
        if (next == null) {
            return false;
        }
        own.replace(next);
        return true;
    }

    /** The Redis client of this lock's {@code RedisLocks}. Not API: for lock-retry-integration's conflict stats. */
    public UnifiedJedis redis() {
        return engine.redis();
    }

    /** The key prefix of this lock's {@code RedisLocks}. Not API: for lock-retry-integration's conflict stats. */
    public String keyPrefix() {
        return engine.config().keyPrefix();
    }

    /** The parked work of this lock's key (docs/lock-keys.md, "Parked work"). Not API: for lock-retry-integration. */
    public Parking parking() {
        return new Parking(engine.redis(), key, keyString);
    }

    @Deprecated
    @Override
    public Optional<Duration> lastHolderTtl() {
        return engine.lastConflicts().holderTtl(name);
    }

    @Override
    public <T> T withLock(Callable<T> body) {
        return withLock(Duration.ZERO, body);
    }

    @Override
    public void withLock(Runnable body) {
        withLock(Duration.ZERO, body);
    }

    @Override
    public void withLock(Duration wait, Runnable body) {
        Require.notNull("body", body);
        withLock(wait, () -> {
            body.run();
            return null;
        });
    }

    @Override
    public <T> T withLock(Duration wait, Callable<T> body) {
        Require.notNull("body", body);
        Outcome outcome = uninterruptibly(nanos(wait), false, defaultLeaseMillis(), watchdog());
        if (!outcome.acquired()) {
            throw outcome.toAttempt(name).toConflict();
        }
        T result;
        try {
            result = body.call();
        } catch (RuntimeException | Error e) {
            unlockAfter(e);
            throw e;
        } catch (Exception e) {
            CompletionException wrapped = new CompletionException(e);
            unlockAfter(wrapped);
            throw wrapped;
        }
        unlock();
        return result;
    }

    private void unlockAfter(Throwable failure) {
        try {
            unlock();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public LockLease acquire(Duration wait) {
        return acquireHandle(nanos(wait), defaultLeaseMillis(), watchdog(), true)
                .orElseThrow();
    }

    @Override
    public LockLease acquire(Duration wait, Duration lease) {
        long waitNanos = nanos(wait);
        return acquireHandle(waitNanos, LockConfig.checkLease("lease", lease), false, true)
                .orElseThrow();
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration wait) {
        return acquireHandle(nanos(wait), defaultLeaseMillis(), watchdog(), false);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration wait, Duration lease) {
        long waitNanos = nanos(wait);
        return acquireHandle(waitNanos, LockConfig.checkLease("lease", lease), false, false);
    }

    private Optional<LockLease> acquireHandle(long waitNanos, long leaseMillis, boolean renew, boolean orThrow) {
        Outcome outcome;
        try {
            outcome = engine.acquire(name, key, waitNanos, false, leaseMillis, renew);
            engine.lastConflicts().record(name, outcome);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        if (outcome.hold() == null && orThrow) {
            throw outcome.toAttempt(name).toConflict();
        }
        return Optional.ofNullable(outcome.hold());
    }

    @Override
    public String toString() {
        return "DistributedLock[" + keyString + "]";
    }
}
