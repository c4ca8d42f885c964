package io.github.deferlock.lock;

import java.time.Duration;

/**
 * One hold of a lock, not bound to a thread: from {@link DistributedLock#acquire(java.time.Duration)} or
 * {@link DistributedLock#tryAcquire(java.time.Duration)}. Use it with try-with-resources; it can be
 * released from any thread, which suits async code and virtual threads.
 *
 * <pre>{@code
 * try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     store.write(record, lease.fencingToken());
 * }
 * }</pre>
 *
 * <p>Threadsafe.
 */
public interface LockLease extends AutoCloseable {

    /** The Redis key of the lock. */
    String key();

    /** The fencing token of this hold: larger than that of every earlier hold of the same key. */
    long fencingToken();

    /**
     * True while this hold is valid: not released, not lost, and its lease (renewed or not) has not run out
     * by this process's clock.
     */
    boolean isHeld();

    /**
     * Releases the hold in Redis (compare-and-delete) and wakes the next waiter. A second call does nothing.
     *
     * @throws LockLostException when the hold was lost before this call
     * @throws LockException when Redis cannot be reached; the key then expires with its lease
     */
    void release();

    /**
     * Sets the lease of this hold to {@code lease} from now, in one compare-and-{@code PEXPIRE}: longer or
     * shorter than before. For a hold with an explicit lease (the watchdog renews the others). Safe to resend.
     *
     * @param lease the new lease, at least 30 ms and at most 365 days
     * @return true when Redis still held this hold and its lease was set; false when the hold was gone (its
     *     lease ran out, it was lost or released): nothing changed, and a hold that Redis no longer held is
     *     marked lost ({@link #isHeld()} turns false, listeners hear it)
     * @throws IllegalArgumentException when {@code lease} is out of range
     * @throws IllegalStateException when the watchdog renews this hold (acquired without a lease)
     * @throws LockException when Redis cannot be reached
     */
    boolean extend(Duration lease);

    /**
     * Ends this hold but leaves the key held in Redis for {@code keep} more (a compare-and-{@code PEXPIRE}
     * instead of the delete), so that nobody acquires it before then: ShedLock's "lock at least for". The key
     * then expires with no release notice, so processes waiting for it learn of it by their fallback poll.
     * With {@code keep} zero or negative this is {@link #release()}. A second call does nothing.
     *
     * @param keep how much longer the key stays held, at most 365 days
     * @throws LockLostException when the hold was lost before this call
     * @throws LockException when Redis cannot be reached; the key then expires with its lease
     */
    void releaseAfter(Duration keep);

    /** Same as {@link #release()}. */
    @Override
    void close();
}
