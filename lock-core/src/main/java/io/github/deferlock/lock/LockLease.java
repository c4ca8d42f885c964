package io.github.deferlock.lock;

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

    /** Same as {@link #release()}. */
    @Override
    void close();
}
