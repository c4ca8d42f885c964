package io.github.deferlock.spring;

import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.LockListener;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lock objects {@code @WithLock} methods use: the application's {@link RedisLocks} for watchdog-renewed
 * holds, one more {@code RedisLocks} per distinct fixed lease (same client, prefix and listener, no watchdog),
 * and one {@link LockRunner} per (lease, wait) pair. The set of annotations bounds their number.
 */
final class LockClients implements AutoCloseable {

    private record RunnerKey(Duration lease, Duration maxWait) {}

    private final UnifiedJedis redis;
    private final RedisLocks defaultLocks;
    private final DeferlockProperties.Lock settings;
    private final LockListener lockListener;
    private final ConflictListener conflictListener;
    private final Map<Duration, RedisLocks> leased = new ConcurrentHashMap<>();
    private final Map<RunnerKey, LockRunner> runners = new ConcurrentHashMap<>();

    LockClients(
            UnifiedJedis redis,
            RedisLocks defaultLocks,
            DeferlockProperties.Lock settings,
            LockListener lockListener,
            ConflictListener conflictListener) {
        this.redis = redis;
        this.defaultLocks = defaultLocks;
        this.settings = settings;
        this.lockListener = lockListener;
        this.conflictListener = conflictListener;
    }

    ConflictListener conflictListener() {
        return conflictListener;
    }

    /** The locks for holds of {@code lease} (null: the application's watchdog-renewed locks). */
    RedisLocks locks(Duration lease) {
        if (lease == null) {
            return defaultLocks;
        }
        return leased.computeIfAbsent(lease, l -> RedisLocks.builder(redis)
                .keyPrefix(settings.getKeyPrefix())
                .defaultLease(l)
                .watchdog(false)
                .listener(lockListener)
                .build());
    }

    /** The runner for holds of {@code lease} whose SLEEP_RETRY sleeps at most {@code maxWait} (null: the default). */
    LockRunner runner(Duration lease, Duration maxWait) {
        return runners.computeIfAbsent(new RunnerKey(lease, maxWait), k -> {
            DeferlockProperties.SleepRetry s = settings.getSleepRetry();
            SleepRetry retry = new SleepRetry(
                    Backoff.exponential(s.getInitialDelay(), s.getMaxDelay(), 2.0)
                            .withJitter(0.2),
                    s.getMaxAttempts(),
                    k.maxWait() != null ? k.maxWait() : s.getMaxWait());
            return LockRunner.builder(locks(k.lease()))
                    .sleepRetry(retry)
                    .listener(conflictListener)
                    .build();
        });
    }

    @Override
    public void close() {
        leased.values().forEach(RedisLocks::close);
        leased.clear();
    }
}
