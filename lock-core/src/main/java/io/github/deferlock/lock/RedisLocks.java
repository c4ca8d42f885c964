package io.github.deferlock.lock;

import io.github.deferlock.lock.internal.AnnouncingListener;
import io.github.deferlock.lock.internal.LockConfig;
import io.github.deferlock.lock.internal.LockEngine;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.lock.internal.RedisPermits;
import io.github.deferlock.lock.internal.RedisRateLimiter;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * The entry point: hands out {@link DistributedLock}s by name and owns what they share — one watchdog
 * thread that renews every held lease in batches, and a share of one pub/sub connection (taken from the client
 * when first needed) that hears release notices for all keys: every {@code RedisLocks} built on one client with
 * one key prefix shares that connection, so building many of them never exhausts the client's pool (see
 * docs/locks.md, "Connections").
 *
 * <pre>{@code
 * RedisLocks locks = RedisLocks.builder(redis).keyPrefix("lock:").build();
 * DistributedLock lock = locks.get("order:42");
 * }</pre>
 *
 * <p>Works with any {@link UnifiedJedis}: {@code RedisClient}, {@code RedisSentinelClient}, {@code
 * RedisClusterClient}. The client stays the caller's: {@link #close()} does not close it.
 *
 * <p>Threadsafe.
 */
public final class RedisLocks implements AutoCloseable {

    private final LockEngine engine;
    private final LockConfig config;

    private RedisLocks(LockEngine engine, LockConfig config) {
        this.engine = engine;
        this.config = config;
    }

    /**
     * Starts a builder for locks on {@code redis}.
     *
     * @throws NullPointerException when {@code redis} is null
     */
    public static Builder builder(UnifiedJedis redis) {
        return new Builder(Require.notNull("redis", redis));
    }

    /**
     * The lock called {@code name}. Cheap: no Redis call. Any string is a valid name (binary-safe: quotes,
     * newlines, braces, non-ASCII).
     *
     * @throws NullPointerException "name cannot be null"
     * @throws IllegalArgumentException when {@code name} is empty or not valid Unicode
     * @throws IllegalStateException when this object is closed
     */
    public DistributedLock get(String name) {
        return new RedisLock(engine, name);
    }

    /**
     * The permits (a fenced, self-renewing distributed semaphore) called {@code name} with at most {@code limit}
     * holders at once. Cheap: no Redis call. Names follow the lock's rule and share its key: a name is used either
     * as a lock or as permits (docs/locks.md, "Permits").
     *
     * @param limit how many holders at once, within [1, {@link DistributedPermits#MAX_LIMIT}]
     * @throws NullPointerException "name cannot be null"
     * @throws IllegalArgumentException when {@code name} is empty or not valid Unicode, or {@code limit} is out
     *     of range
     * @throws IllegalStateException when this object is closed
     */
    public DistributedPermits permits(String name, int limit) {
        return new RedisPermits(engine, name, limit);
    }

    /**
     * The rate limiter called {@code name} with {@code limit}: at most {@code limit.rate()} starts per {@code
     * limit.interval()} across every process that uses the name, decided in Redis on the server's clock (GCRA;
     * docs/locks.md, "Rate limits"). Cheap: no Redis call. Names follow the lock's name rule; a limiter's state
     * lives in its own key ({@code <prefix>{<name>}:rate}) beside the lock of the same name, which it does not
     * touch. It needs nothing {@link #close()} stops, so it keeps working after close.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code name} is empty or not valid Unicode
     */
    public RateLimiter rateLimiter(String name, RateLimit limit) {
        return new RedisRateLimiter(config.redis(), config.keyPrefix(), config.clock(), name, limit);
    }

    /**
     * Stops the watchdog and leaves the shared release-notice subscription (the last {@code RedisLocks} of the
     * client and prefix ends it). Leases held now are no longer renewed and expire
     * in Redis at the end of their lease; {@code unlock()} and {@code release()} still work. Idempotent.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "RedisLocks" + engine;
    }

    /**
     * Settings for a {@link RedisLocks}. Each setting may be given once; a second call is an {@link
     * IllegalStateException}. Not threadsafe.
     */
    public static final class Builder {
        private final UnifiedJedis redis;
        private String keyPrefix;
        private Duration defaultLease;
        private Boolean watchdog;
        private LockClock clock;
        private LockListener listener;
        private Integer replicas;
        private Duration replicaTimeout;

        private Builder(UnifiedJedis redis) {
            this.redis = redis;
        }

        /**
         * The prefix of every lock key; default {@code "lock:"}. May be empty; must not contain '{' or '}'
         * (the name goes in the key's hash tag).
         *
         * @throws NullPointerException when {@code keyPrefix} is null
         * @throws IllegalArgumentException when it contains a brace
         * @throws IllegalStateException when already set
         */
        public Builder keyPrefix(String keyPrefix) {
            Require.notNull("keyPrefix", keyPrefix);
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("keyPrefix cannot contain '{' or '}': " + keyPrefix);
            }
            this.keyPrefix = Require.setOnce("keyPrefix", this.keyPrefix, keyPrefix);
            return this;
        }

        /**
         * The lease of a hold acquired without an explicit lease; default 30 s. The watchdog renews such holds
         * every third of it. At least 30 ms (three renewal ticks of 10 ms).
         *
         * @throws NullPointerException when {@code lease} is null
         * @throws IllegalArgumentException when it is shorter than 30 ms
         * @throws IllegalStateException when already set
         */
        public Builder defaultLease(Duration lease) {
            LockConfig.checkLease("defaultLease", lease);
            this.defaultLease = Require.setOnce("defaultLease", this.defaultLease, lease);
            return this;
        }

        /**
         * Whether holds without an explicit lease are renewed by the watchdog; default true. When false they
         * simply end after {@link #defaultLease(Duration)}.
         *
         * @throws IllegalStateException when already set
         */
        public Builder watchdog(boolean enabled) {
            this.watchdog = Require.setOnce("watchdog", this.watchdog, enabled);
            return this;
        }

        /**
         * The clock for lease validity and the reported waits and hold times; default {@link
         * LockClock#system()}.
         *
         * @throws NullPointerException when {@code clock} is null
         * @throws IllegalStateException when already set
         */
        public Builder clock(LockClock clock) {
            this.clock = Require.setOnce("clock", this.clock, clock);
            return this;
        }

        /**
         * Who hears acquisitions, conflicts, releases and losses; default none.
         *
         * @throws NullPointerException when {@code listener} is null
         * @throws IllegalStateException when already set
         */
        public Builder listener(LockListener listener) {
            this.listener = Require.setOnce("listener", this.listener, listener);
            return this;
        }

        /**
         * After each acquisition, waits (Redis {@code WAIT}) until {@code replicas} replicas have the key, at
         * most {@code timeout}; fewer acknowledgements release the key again and fail the acquisition with a
         * {@link LockException}. Off by default. This narrows, but does not close, the window in which a
         * failover loses a fresh lock: see docs/locks.md.
         *
         * @throws IllegalArgumentException when {@code replicas} is below 1 or {@code timeout} is not positive
         * @throws IllegalStateException when already set
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            Require.atLeast("replicas", replicas, 1);
            Require.positive("timeout", timeout);
            this.replicas = Require.setOnce("waitForReplicas", this.replicas, replicas);
            this.replicaTimeout = timeout;
            return this;
        }

        /**
         * Builds the entry object; the builder may be reused. Reads the server's eviction settings once
         * ({@code INFO memory}) and logs a WARN when Redis may evict lock keys ({@code maxmemory} set and a
         * {@code maxmemory-policy} other than {@code noeviction}); it never fails on what it finds or when
         * the server cannot answer. Announces the key prefix in the registry the ops tools read ({@code
         * <prefix>registry}, a hash; refreshed on acquisitions at most every 30 s; a failed write is ignored:
         * docs/names.md).
         */
        public RedisLocks build() {
            LockConfig config = new LockConfig(
                    redis,
                    Require.orDefault(keyPrefix, "lock:"),
                    Require.orDefault(defaultLease, Duration.ofSeconds(30)),
                    Require.orDefault(watchdog, true),
                    Require.orDefault(clock, LockClock.system()),
                    AnnouncingListener.announce(
                            Require.orDefault(listener, LockListener.NONE),
                            redis,
                            Require.orDefault(keyPrefix, "lock:")),
                    Require.orDefault(replicas, 0),
                    Require.orDefault(replicaTimeout, Duration.ZERO));
            LockEngine engine = new LockEngine(config);
            engine.checkEvictionPolicy();
            return new RedisLocks(engine, config);
        }
    }
}
