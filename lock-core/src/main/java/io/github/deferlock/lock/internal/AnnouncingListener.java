package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockListener;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.RegistryBeacon;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * The listener a {@code RedisLocks} runs: the user's, plus the registry announcement of its key prefix
 * (docs/names.md, "Registry") — once when built, then on acquisitions at most every 30 s, so the ops tools
 * list the prefix while it is in use. The announcement never throws and never reaches the user's listener.
 * Threadsafe.
 */
public final class AnnouncingListener implements LockListener {
    private final LockListener delegate;
    private final UnifiedJedis redis;
    private final String prefix;
    private final RegistryBeacon beacon = new RegistryBeacon(Registry.Kind.LOCK_PREFIX);

    private AnnouncingListener(LockListener delegate, UnifiedJedis redis, String prefix) {
        this.delegate = Objects.requireNonNull(delegate, "listener cannot be null");
        this.redis = Objects.requireNonNull(redis, "redis cannot be null");
        this.prefix = Objects.requireNonNull(prefix, "prefix cannot be null");
    }

    /** Wraps {@code delegate} and announces {@code prefix} now. */
    public static LockListener announce(LockListener delegate, UnifiedJedis redis, String prefix) {
        AnnouncingListener l = new AnnouncingListener(delegate, redis, prefix);
        l.beacon.touch(redis, prefix);
        return l;
    }

    @Override
    public void onAcquired(String key, long fencingToken, Duration waited) {
        beacon.touch(redis, prefix);
        delegate.onAcquired(key, fencingToken, waited);
    }

    @Override
    public void onConflict(String key, Optional<Duration> holderTtl) {
        delegate.onConflict(key, holderTtl);
    }

    @Override
    public void onReleased(String key, Duration held) {
        delegate.onReleased(key, held);
    }

    @Override
    public void onLost(String key, long fencingToken, Throwable cause) {
        delegate.onLost(key, fencingToken, cause);
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
