package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockListener;
import java.time.Duration;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/**
 * The settings of one {@code RedisLocks}, validated. Immutable.
 *
 * @param replicas 0 when no {@code WAIT} follows an acquisition
 */
public record LockConfig(
        UnifiedJedis redis,
        String keyPrefix,
        Duration defaultLease,
        boolean watchdog,
        LockClock clock,
        LockListener listener,
        int replicas,
        Duration replicaTimeout) {

    /** The shortest watchdog tick; a lease is at least three of them. */
    public static final Duration MIN_TICK = Duration.ofMillis(10);

    /** The shortest lease. */
    public static final Duration MIN_LEASE = MIN_TICK.multipliedBy(3);

    /** The longest lease: a year (a longer one is a mistake, and a far one overflows milliseconds). */
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    /** Validates the settings. */
    public LockConfig {
        Objects.requireNonNull(redis, "redis cannot be null");
        Objects.requireNonNull(keyPrefix, "keyPrefix cannot be null");
        checkLease("defaultLease", defaultLease);
        Objects.requireNonNull(clock, "clock cannot be null");
        Objects.requireNonNull(listener, "listener cannot be null");
        Objects.requireNonNull(replicaTimeout, "replicaTimeout cannot be null");
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas cannot be negative: " + replicas);
        }
    }

    /** Checks that {@code value} is positive; names it otherwise. */
    public static Duration checkPositive(String what, Duration value) {
        Objects.requireNonNull(value, what + " cannot be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + value);
        }
        return value;
    }

    /** Checks that {@code value} is not negative; names it otherwise. */
    public static Duration checkWait(Duration value) {
        Objects.requireNonNull(value, "wait cannot be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException("wait cannot be negative: " + value);
        }
        return value;
    }

    /** Checks that a lease is positive and at least {@link #MIN_LEASE}; returns it in milliseconds. */
    public static long checkLease(String what, Duration lease) {
        checkPositive(what, lease);
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(what + " " + lease + " is longer than " + MAX_LEASE.toDays() + " days");
        }
        if (lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException(what + " " + lease + " is shorter than " + MIN_LEASE.toMillis()
                    + " ms (three watchdog renewal ticks of " + MIN_TICK.toMillis() + " ms)");
        }
        return lease.toMillis();
    }
}
