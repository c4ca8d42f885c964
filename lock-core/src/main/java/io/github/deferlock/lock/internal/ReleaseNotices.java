package io.github.deferlock.lock.internal;

/**
 * Where waiters hear release notices of other processes: {@link Subscriber} (one {@code SUBSCRIBE}
 * connection, standalone, Sentinel and Redis 6.2 clusters) or {@link ShardedSubscriber} ({@code SSUBSCRIBE}
 * per cluster node, Redis 7.0+ clusters). A missed notice only costs latency: waiters also poll with a
 * bounded backoff. Implementations are threadsafe.
 */
interface ReleaseNotices extends AutoCloseable {
    /** Starts delivering notices for {@code st}'s channel to {@code st}. */
    void watch(KeyState st);

    /** Stops delivering notices to {@code st}. */
    void unwatch(KeyState st);

    /** Stops every subscription; idempotent. */
    @Override
    void close();
}
