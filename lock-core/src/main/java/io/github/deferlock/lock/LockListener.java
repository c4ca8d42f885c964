package io.github.deferlock.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * Hears what happens to the locks of one {@link RedisLocks}: for metrics and logs. Every method has a
 * no-op default, so an implementation overrides only what it needs.
 *
 * <p>Methods are called synchronously on the thread that caused the event (the acquiring or releasing
 * thread; the watchdog thread for {@link #onLost}). They must be quick and threadsafe; an unchecked exception
 * they throw is logged and otherwise ignored. An {@link Error} from {@link #onAcquired} releases the new hold
 * and then reaches the caller; one from {@link #onLost} on the watchdog thread is logged and the watchdog
 * carries on. No listener failure leaves a lock held.
 *
 * <p>Permits ({@link RedisLocks#permits(String, int)}) are heard through the same callbacks, with the permits'
 * key: each permit acquired, released or lost, and each acquisition that found no permit free.
 */
public interface LockListener {

    /** A listener that does nothing; the default. */
    LockListener NONE = new LockListener() {};

    /**
     * A lock was acquired in Redis (re-entries by the holding thread are not reported).
     *
     * @param key the Redis key of the lock
     * @param fencingToken the fencing token of the new hold
     * @param waited how long the caller waited, from the call until the hold
     */
    default void onAcquired(String key, long fencingToken, Duration waited) {}

    /**
     * An acquisition gave up because the lock stayed taken for the whole wait.
     *
     * @param key the Redis key of the lock
     * @param holderTtl the remaining TTL of the holder's key as Redis last reported it; empty when unknown
     *     (the lock was held in this JVM, or the key has no TTL)
     */
    default void onConflict(String key, Optional<Duration> holderTtl) {}

    /**
     * A hold was released in Redis.
     *
     * @param key the Redis key of the lock
     * @param held how long the lock was held
     */
    default void onReleased(String key, Duration held) {}

    /**
     * A hold was lost: its renewal was refused or failed until the lease ran out, or its release found the
     * key gone or taken by someone else. From now on another process may hold the lock.
     *
     * @param key the Redis key of the lock
     * @param fencingToken the fencing token of the lost hold
     * @param cause what showed the loss
     */
    default void onLost(String key, long fencingToken, Throwable cause) {}
}
