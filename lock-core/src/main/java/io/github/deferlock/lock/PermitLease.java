package io.github.deferlock.lock;

/**
 * One permit of a {@link DistributedPermits}, not bound to a thread: use it with try-with-resources.
 *
 * <pre>{@code
 * try (PermitLease permit = renders.acquire(Duration.ofSeconds(5))) {
 *     workers[permit.slot()].render(job, permit.fencingToken());
 * }
 * }</pre>
 *
 * <p>{@link #fencingToken()} is larger than that of every earlier permit of the same name (so also of every
 * earlier holder of the same slot). {@link #key()} is the permits' Redis key. {@link #extend} and {@link
 * #releaseAfter} work as for a lock: they set this permit's lease in Redis. Threadsafe.
 */
public interface PermitLease extends LockLease {

    /** This permit's slot in {@code [0, limit)}: the lowest slot no live holder had when it was granted. */
    int slot();
}
