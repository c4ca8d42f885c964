package io.github.deferlock.lock.internal;

import java.util.Arrays;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where this engine's waiters hear release notices: sharded pub/sub on a Redis 7.0+ cluster, plain pub/sub
 * otherwise. The choice asks the cluster once; if it cannot answer yet, waiters only poll for now and the
 * question is asked again at the next wait. Threadsafe.
 */
final class NoticeSubscriptions implements AutoCloseable {
    private static final ReleaseNotices POLL_ONLY = new ReleaseNotices() {
        @Override
        public void watch(KeyState st) {}

        @Override
        public void unwatch(KeyState st) {}

        @Override
        public void close() {}
    };

    private final UnifiedJedis redis;
    private final String keyPrefix;
    private final Optional<ClusterAccess> cluster;
    private final LockRequests requests;
    private final Object lock = new Object();
    private volatile ReleaseNotices notices; // chosen on first need: it may ask the server
    private volatile boolean closed;

    NoticeSubscriptions(UnifiedJedis redis, String keyPrefix, Optional<ClusterAccess> cluster, LockRequests requests) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
        this.cluster = cluster;
        this.requests = requests;
    }

    /**
     * Starts delivering notices for {@code st} to it.
     *
     * @return whether {@code st} is watched (call {@link #unwatch} then); false once closed
     */
    boolean watch(KeyState st) {
        if (closed) {
            return false;
        }
        notices().watch(st);
        return true;
    }

    /** Stops delivering notices to {@code st}. */
    void unwatch(KeyState st) {
        notices().unwatch(st);
    }

    private ReleaseNotices notices() {
        ReleaseNotices n = notices;
        if (n == null) {
            synchronized (lock) {
                n = notices;
                if (n == null) {
                    byte[] flag = requests.shardedFlag();
                    if (!requests.shardedKnown()) {
                        return POLL_ONLY; // the cluster cannot say yet: poll, ask again next time
                    }
                    n = cluster.isPresent() && Arrays.equals(flag, LockRequests.SHARDED)
                            ? new ShardedSubscriber(cluster.get())
                            : new Subscriber(redis, keyPrefix);
                    notices = n;
                    if (closed) {
                        n.close();
                    }
                }
            }
        }
        return n;
    }

    /** Stops the subscriptions; idempotent. */
    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            if (notices != null) {
                notices.close();
            }
        }
    }
}
