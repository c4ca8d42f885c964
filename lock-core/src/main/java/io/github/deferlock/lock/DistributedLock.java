package io.github.deferlock.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A named Redis lock from {@link RedisLocks#get(String)}: reentrant per thread, fenced, and renewed by a
 * watchdog while held unless an explicit lease is given.
 *
 * <p>Two ways to hold it:
 *
 * <ul>
 *   <li>thread-bound, like {@link java.util.concurrent.locks.ReentrantLock}: {@link #tryLock()}, {@link
 *       #lock()}, {@link #unlock()}, {@link #withLock(Callable)}. Re-entry by the holding thread only counts
 *       up (no Redis call); the last {@link #unlock()} releases in Redis.
 *   <li>a handle, not bound to a thread: {@link #acquire(Duration)} and {@link #tryAcquire(Duration)} return
 *       a {@link LockLease} that any thread may close. Handles are not reentrant: a second acquire waits
 *       like any other contender.
 * </ul>
 *
 * <p>Waiting: contenders in one JVM queue locally in FIFO order so only one of them asks Redis; other JVMs
 * are woken by the release notice, with a bounded backoff poll when a notice is missed. A {@code wait} of
 * {@link Duration#ZERO} tries once. Waits other than {@link #lockInterruptibly()} end with a {@link
 * LockException} (cause {@link InterruptedException}, interrupt flag restored) when the thread is
 * interrupted; nothing is left in Redis then.
 *
 * <p>Leases: without an explicit lease the hold lives for {@link RedisLocks.Builder#defaultLease(Duration)}
 * and the watchdog renews it every third of that; with an explicit lease it is never renewed and ends when
 * the lease runs out. Leases are at least 30 ms and whole milliseconds count.
 *
 * <p>Instances are threadsafe and cheap; two instances for the same name from one {@link RedisLocks} are
 * the same lock, also for reentrancy.
 */
public interface DistributedLock {

    /** The lock's name as given to {@link RedisLocks#get(String)}. */
    String name();

    /** The Redis key of the lock (see docs/lock-keys.md for the layout). */
    String key();

    /**
     * Acquires the lock if it is free now, without waiting, with the default lease and watchdog. A key that
     * another process just released to the next waiter of its queue (a live waiter of another {@code
     * RedisLocks} queued for it) is not free: this returns false rather than overtake that waiter
     * (docs/locks.md, "Waiting").
     *
     * @return true when the current thread holds the lock (also when it already held it)
     * @throws LockException when Redis fails, or the key holds a value that is not a lock
     */
    boolean tryLock();

    /**
     * Acquires the lock, waiting up to {@code wait}, with the default lease and watchdog. The bound holds for
     * the wait for a pooled connection too: on a {@code RedisClient} a pool that stays exhausted for the rest of
     * the wait (at least 100 ms) fails the call (docs/locks.md, "Connections").
     *
     * @return true when the current thread holds the lock; false when the wait ran out
     * @throws NullPointerException when {@code wait} is null
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails, the key is not a lock, the client's pool stays exhausted (the
     *     message names its size), or the thread is interrupted
     */
    boolean tryLock(Duration wait);

    /**
     * Acquires the lock, waiting up to {@code wait}, for a fixed {@code lease} that is not renewed. Re-entry
     * keeps the lease of the first acquisition.
     *
     * @return true when the current thread holds the lock; false when the wait ran out
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code wait} is negative or {@code lease} is shorter than 30 ms
     * @throws LockException when Redis fails, the key is not a lock, or the thread is interrupted
     */
    boolean tryLock(Duration wait, Duration lease);

    /**
     * Acquires the lock, waiting as long as it takes, with the default lease and watchdog.
     *
     * @throws LockException when Redis fails, the key is not a lock, or the thread is interrupted (the flag
     *     is restored and no key is left behind)
     */
    void lock();

    /**
     * Like {@link #lock()}, but an interrupt ends the wait with {@link InterruptedException}.
     *
     * @throws InterruptedException when the thread is interrupted while waiting
     * @throws LockException when Redis fails or the key is not a lock
     */
    void lockInterruptibly() throws InterruptedException;

    /**
     * Counts one hold of the current thread down; the last one releases the lock in Redis and wakes the next
     * waiter.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws LockLostException when the hold was lost (its count still goes down)
     * @throws LockException when Redis cannot be reached; the key then expires with its lease
     */
    void unlock();

    /** True when the current thread holds the lock and the hold has not been lost or run out. */
    boolean isHeldByCurrentThread();

    /** How many times the current thread holds the lock (re-entries count); 0 when it does not. */
    int holdCount();

    /**
     * The fencing token of the current thread's hold: every acquisition of the key gets a larger token.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    long fencingToken();

    /**
     * Like {@link #tryLock(Duration)}, but says what happened: whether the current thread now holds the lock
     * (also when it already held it) and, when it does not, the conflict's details (attempts, time waited,
     * the holder's remaining TTL) for a retry strategy that should not sleep past the holder's lease.
     *
     * @return the attempt's result; {@link LockAttempt#toConflict()} turns a conflict into the exception
     * @throws NullPointerException when {@code wait} is null
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails, the key is not a lock, or the thread is interrupted
     */
    LockAttempt attempt(Duration wait);

    /**
     * The holder's remaining TTL that the current thread's most recent acquisition attempt on this lock
     * reported, when that attempt failed. Empty when the attempt succeeded, the thread never tried, the lock
     * was held in this JVM, or the key has no TTL.
     *
     * @return the TTL Redis reported, or empty
     * @deprecated a per-thread side channel; use {@link #attempt(Duration)}, whose result carries the
     *     holder's TTL of that very attempt
     */
    @Deprecated(since = "0.1.0")
    Optional<Duration> lastHolderTtl();

    /**
     * Runs {@code body} under the lock if it is free now (no waiting) and releases it afterwards. Reentrant.
     *
     * @return what {@code body} returned
     * @throws LockConflictException when the lock is held by someone else
     * @throws LockLostException when the hold was lost while {@code body} ran
     * @throws java.util.concurrent.CompletionException wrapping a checked exception {@code body} threw;
     *     unchecked exceptions pass through unchanged
     */
    <T> T withLock(Callable<T> body);

    /** Like {@link #withLock(Callable)} for a body without a result. */
    void withLock(Runnable body);

    /**
     * Like {@link #withLock(Callable)}, but waits up to {@code wait} for the lock.
     *
     * @throws IllegalArgumentException when {@code wait} is negative
     */
    <T> T withLock(Duration wait, Callable<T> body);

    /** Like {@link #withLock(Duration, Callable)} for a body without a result. */
    void withLock(Duration wait, Runnable body);

    /**
     * Acquires a handle on the lock, waiting up to {@code wait}, with the default lease and watchdog.
     *
     * @throws LockConflictException when the wait ran out
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails, the key is not a lock, or the thread is interrupted
     */
    LockLease acquire(Duration wait);

    /** Like {@link #acquire(Duration)} with a fixed {@code lease} that is not renewed. */
    LockLease acquire(Duration wait, Duration lease);

    /**
     * Acquires a handle on the lock, waiting up to {@code wait}, with the default lease and watchdog.
     *
     * @return the handle, or empty when the wait ran out
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails, the key is not a lock, or the thread is interrupted
     */
    Optional<LockLease> tryAcquire(Duration wait);

    /** Like {@link #tryAcquire(Duration)} with a fixed {@code lease} that is not renewed. */
    Optional<LockLease> tryAcquire(Duration wait, Duration lease);
}
