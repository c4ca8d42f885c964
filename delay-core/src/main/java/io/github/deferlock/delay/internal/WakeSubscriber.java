package io.github.deferlock.delay.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * Listens on a queue's wake channel on one dedicated connection (a daemon thread) and calls {@code onWake}
 * for every notice and after every (re)subscribe, since notices published while disconnected are lost. A
 * dropped connection is reopened with backoff (50 ms doubling to 5 s). Threadsafe.
 */
public final class WakeSubscriber {
    private static final Logger LOG = LoggerFactory.getLogger(WakeSubscriber.class);
    private static final long MIN_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 5_000;

    private final UnifiedJedis redis;
    private final byte[] channel;
    private final Runnable onWake;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread thread;
    private volatile BinaryJedisPubSub current;

    /** Creates a subscriber; {@link #start()} opens the connection. */
    public WakeSubscriber(UnifiedJedis redis, byte[] channel, Runnable onWake, String threadName) {
        this.redis = redis;
        this.channel = channel.clone();
        this.onWake = onWake;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** Starts the listening thread. */
    public void start() {
        thread.start();
    }

    private void run() {
        long backoff = MIN_BACKOFF_MS;
        while (!closed.get()) {
            BinaryJedisPubSub pubSub = new BinaryJedisPubSub() {
                @Override
                public void onMessage(byte[] ch, byte[] message) {
                    onWake.run();
                }

                @Override
                public void onSubscribe(byte[] ch, int subscribedChannels) {
                    if (closed.get()) {
                        unsubscribe();
                    }
                    onWake.run();
                }
            };
            current = pubSub;
            try {
                redis.subscribe(pubSub, channel);
                backoff = MIN_BACKOFF_MS; // a clean unsubscribe: only happens on close
            } catch (RuntimeException e) {
                if (closed.get()) {
                    break;
                }
                LOG.debug("wake subscription lost, reconnecting in {} ms: {}", backoff, e.toString());
                if (pubSub.getSubscribedChannels() > 0 || backoff > MIN_BACKOFF_MS) {
                    onWake.run(); // let the worker poll instead of trusting notices while we reconnect
                }
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    break;
                }
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
            }
        }
    }

    /** Unsubscribes and stops the thread; waits up to one second for it. Idempotent. */
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        BinaryJedisPubSub pubSub = current;
        if (pubSub != null) {
            try {
                if (pubSub.isSubscribed()) {
                    pubSub.unsubscribe();
                }
            } catch (RuntimeException e) {
                LOG.debug("unsubscribe failed: {}", e.toString());
            }
        }
        thread.interrupt();
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
