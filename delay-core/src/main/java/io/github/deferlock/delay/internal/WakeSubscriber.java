package io.github.deferlock.delay.internal;

import io.github.deferlock.redis.internal.NoticeBus;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker's subscription to its queue's wake channel, on its queue's {@link WakeBus} (the bus of the {@code
 * RedisQueues} the queue was built through, shared with the workers of its other queues, or the standalone
 * queue's own). {@code onWake} runs for every notice, after every (re)subscription, and once at {@link
 * #start()}, since notices published before it was subscribed are lost. Threadsafe.
 */
public final class WakeSubscriber {
    private final WakeBus bus;
    private final byte[] channel;
    private final Runnable onWake;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicReference<NoticeBus.Subscription> subscription = new AtomicReference<>();

    /** Creates a subscription; {@link #start()} opens it. */
    public WakeSubscriber(WakeBus bus, byte[] channel, Runnable onWake) {
        this.bus = bus;
        this.channel = channel.clone();
        this.onWake = onWake;
    }

    /**
     * Subscribes, then wakes once. Only the first call does anything.
     *
     * @throws IllegalStateException when the bus was closed
     */
    public void start() {
        if (started.compareAndSet(false, true)) {
            subscription.set(bus.watch(channel, onWake));
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
