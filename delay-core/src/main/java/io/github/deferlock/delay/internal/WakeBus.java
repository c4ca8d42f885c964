package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.NoticeBus;
import io.github.deferlock.redis.internal.Require;
import io.github.deferlock.redis.internal.Topology;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@link NoticeBus} that workers take their wake subscriptions from, owned by one object: a {@code
 * RedisQueues} ({@link #shared}: one bus for the workers of every queue built through it, until the owner
 * closes it) or a standalone {@code DelayQueue} ({@link #own}: a bus for that queue's workers alone, opened by
 * its first worker's subscription and closed with the last one). A bus holds one subscription connection (one
 * per master on a sharded cluster) however many channels its listeners watch, and only while someone
 * watches. There is no bus outside its owner. Threadsafe.
 */
public final class WakeBus implements AutoCloseable {
    private final UnifiedJedis redis;
    private final String threadName;
    private final String owner;
    private final boolean closeWhenIdle;

    // all guarded by this
    private NoticeBus bus;
    private int listeners;
    private boolean closed;

    private WakeBus(UnifiedJedis redis, String threadName, String owner, boolean closeWhenIdle) {
        this.redis = Require.notNull("redis", redis);
        this.threadName = Require.notEmpty("threadName", threadName);
        this.owner = owner;
        this.closeWhenIdle = closeWhenIdle;
    }

    /**
     * A bus for the workers of many queues, kept until {@link #close()}.
     *
     * @param owner names the owner in the error of a watch after {@link #close()}
     */
    public static WakeBus shared(UnifiedJedis redis, String threadName, String owner) {
        return new WakeBus(redis, threadName, owner, false);
    }

    /** A bus for the workers of one queue: opened by the first watch, closed when the last one is closed. */
    public static WakeBus own(UnifiedJedis redis, String threadName) {
        return new WakeBus(redis, threadName, threadName, true);
    }

    /**
     * Calls {@code listener} for notices on {@code channel} until the returned subscription is closed (see
     * {@link NoticeBus#watch}).
     *
     * @throws IllegalStateException when this bus was closed
     */
    public NoticeBus.Subscription watch(byte[] channel, Runnable listener) {
        NoticeBus current;
        NoticeBus.Subscription subscription;
        synchronized (this) {
            requireOpen();
            if (bus == null) {
                bus = new NoticeBus(Topology.of(redis), threadName);
            }
            current = bus;
            subscription = current.watch(channel, listener);
            listeners++;
        }
        return new Watch(current, subscription);
    }

    /** One listener's registration: closing it leaves the bus, and closes an owned bus with its last listener. */
    private final class Watch implements NoticeBus.Subscription {
        private final NoticeBus current;
        private final NoticeBus.Subscription subscription;
        private boolean done; // guarded by WakeBus.this

        Watch(NoticeBus current, NoticeBus.Subscription subscription) {
            this.current = current;
            this.subscription = subscription;
        }

        @Override
        public void close() {
            NoticeBus idle = null;
            synchronized (WakeBus.this) {
                if (done) {
                    return;
                }
                done = true;
                subscription.close();
                if (--listeners == 0 && closeWhenIdle && bus == current) {
                    bus = null;
                    idle = current;
                }
            }
            if (idle != null) {
                idle.close();
            }
        }
    }

    /**
     * Checks that this bus can still be watched (a worker checks before it starts anything).
     *
     * @throws IllegalStateException when this bus was closed
     */
    public synchronized void requireOpen() {
        if (closed) {
            throw new IllegalStateException(owner + " was closed");
        }
    }

    /** Ends every subscription; a later {@link #watch} throws. Idempotent. */
    @Override
    public void close() {
        NoticeBus last;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            last = bus;
            bus = null;
        }
        if (last != null) {
            last.close();
        }
    }
}
