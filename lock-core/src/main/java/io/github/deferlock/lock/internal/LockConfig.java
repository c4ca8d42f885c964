package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockListener;
import io.github.deferlock.redis.internal.Durations;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
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
        Require.notNull("redis", redis);
        Require.notNull("keyPrefix", keyPrefix);
        checkLease("defaultLease", defaultLease);
        Require.notNull("clock", clock);
        Require.notNull("listener", listener);
        Require.notNull("replicaTimeout", replicaTimeout);
        Require.atLeast("replicas", replicas, 0);
    }

    /** Checks that a wait is not negative; names it otherwise. */
    public static Duration checkWait(Duration value) {
        return Require.notNegative("wait", value);
    }

    /** Checks that a lease is positive and at least {@link #MIN_LEASE}; returns it in milliseconds. */
    public static long checkLease(String what, Duration lease) {
        Require.positive(what, lease);
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(
                    what + " " + Durations.format(lease) + " is longer than " + Durations.format(MAX_LEASE));
        }
        if (lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException(what + " " + Durations.format(lease) + " is shorter than "
                    + Durations.format(MIN_LEASE) + " (three watchdog renewal ticks of " + Durations.format(MIN_TICK)
                    + ")");
        }
        return lease.toMillis();
    }
}
