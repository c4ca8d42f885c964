package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.NoticeBus;
import io.github.deferlock.redis.internal.SharedNoticeBuses;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import redis.clients.jedis.UnifiedJedis;

/**
 * A worker's subscription to its queue's wake channel, on the {@link NoticeBus} that every worker on the same
 * client shares ({@link SharedNoticeBuses}: one subscription connection per client, not one per worker). {@code onWake} runs for every
 * notice, after every (re)subscription, and once at {@link #start()}, since notices published before it was
 * subscribed are lost. Threadsafe.
 */
public final class WakeSubscriber {
    private final UnifiedJedis redis;
    private final String threadName;
    private final byte[] channel;
    private final Runnable onWake;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicReference<NoticeBus.Subscription> subscription = new AtomicReference<>();

    /** Creates a subscription; {@link #start()} opens it. */
    public WakeSubscriber(UnifiedJedis redis, byte[] channel, Runnable onWake, String threadName) {
        this.redis = redis;
        this.threadName = threadName;
        this.channel = channel.clone();
        this.onWake = onWake;
    }

    /** Subscribes, then wakes once. Only the first call does anything. */
    public void start() {
        if (started.compareAndSet(false, true)) {
            subscription.set(SharedNoticeBuses.watch(redis, threadName, channel, onWake));
            onWake.run();
        }
    }

    /** Unsubscribes. Idempotent. */
    public void close() {
        NoticeBus.Subscription s = subscription.getAndSet(null);
        if (s != null) {
            s.close();
        }
    }
}
