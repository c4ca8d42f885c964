package io.github.deferlock.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A named, fenced, self-renewing distributed semaphore from {@link RedisLocks#permits(String, int)}: at most
 * {@link #limit()} holders at once across every process, each with a random token, a fencing token and a
 * slot number in {@code [0, limit)} (the lowest free one when granted), so a caller can guard {@code limit}
 * resources. With a limit of 1 it behaves as the lock: one holder, fenced, FIFO.
 *
 * <p>Holding: every acquisition returns a {@link PermitLease}, a handle any thread may release (permits are not
 * reentrant and not bound to a thread: a second acquisition by the same thread takes a second permit).
 * Without an explicit lease the permit lives for {@link RedisLocks.Builder#defaultLease(Duration)} and the
 * watchdog renews it every third of that; with an explicit lease it is not renewed and ends when the lease runs
 * out. A holder that dies frees its permit when its lease ends.
 *
 * <p>Waiting: callers that wait queue in the name's FIFO waiter queue in Redis, one entry per waiting call
 * (across processes); a queued caller is granted a permit when fewer live callers are queued before it than
 * permits are free, and a caller not queued takes a free permit only when the live queue leaves one for it. A
 * release notices the waiter that became eligible; a missed notice is covered by a bounded backoff poll (at most
 * 200 ms). A {@code wait} of {@link Duration#ZERO} tries once.
 *
 * <p>Limit: the holders in Redis were granted under one limit; asking with another while a holder is live is a
 * {@link LockException} naming both limits (nothing changes). When no holder is live, a new limit takes over.
 * A name used as a lock cannot be used as permits at the same time, and the other way round.
 *
 * <p>Instances are threadsafe and cheap (no Redis call to create one).
 */
public interface DistributedPermits {

    /** The largest limit {@link RedisLocks#permits(String, int)} accepts. */
    int MAX_LIMIT = 1000;

    /** The name as given to {@link RedisLocks#permits(String, int)}. */
    String name();

    /** The Redis key of the permits (the zset of holders; docs/lock-keys.md, "Permits"). */
    String key();

    /** How many holders the permits allow at once. */
    int limit();

    /**
     * Acquires a permit, waiting up to {@code wait}, with the default lease and watchdog.
     *
     * @return the permit, or empty when none came free within the wait
     * @throws NullPointerException when {@code wait} is null
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException when Redis fails, the name is held as a lock, the live holders were granted under
     *     another limit, or the thread is interrupted (the flag is restored)
     */
    Optional<PermitLease> tryAcquire(Duration wait);

    /**
     * Acquires a permit, waiting up to {@code wait}, for a fixed {@code lease} that is not renewed.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code wait} is negative or {@code lease} is shorter than 30 ms or
     *     longer than 365 days
     * @throws LockException as {@link #tryAcquire(Duration)}
     */
    Optional<PermitLease> tryAcquire(Duration wait, Duration lease);

    /**
     * Acquires a permit, waiting up to {@code wait}, with the default lease and watchdog.
     *
     * @throws LockConflictException (naming the permits' name, the attempts and the time waited) when no
     *     permit came free within the wait
     * @throws IllegalArgumentException when {@code wait} is negative
     * @throws LockException as {@link #tryAcquire(Duration)}
     */
    PermitLease acquire(Duration wait);

    /** Like {@link #acquire(Duration)} with a fixed {@code lease} that is not renewed. */
    PermitLease acquire(Duration wait, Duration lease);

    /**
     * Runs {@code body} holding a permit (waiting up to {@code wait} for one) and releases it afterwards.
     *
     * @return what {@code body} returned
     * @throws LockConflictException when no permit came free within {@code wait}
     * @throws LockLostException when the permit was lost while {@code body} ran
     * @throws java.util.concurrent.CompletionException wrapping a checked exception {@code body} threw;
     *     unchecked exceptions pass through unchanged
     */
    <T> T withPermit(Duration wait, Callable<T> body);

    /** Like {@link #withPermit(Duration, Callable)} for a body without a result. */
    void withPermit(Duration wait, Runnable body);

    /**
     * The live holders as Redis has them now, by slot: for inspection. One script call (read only, bounded by
     * the limit).
     *
     * @throws LockException when Redis fails or the name is held as a lock
     */
    List<PermitHolder> holders();
}
