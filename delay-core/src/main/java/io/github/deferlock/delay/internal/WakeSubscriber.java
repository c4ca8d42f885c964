package io.github.deferlock.delay.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * A subscription to one queue's wake channel. All subscriptions made through one {@link UnifiedJedis} share
 * one pub/sub connection and one daemon thread (a {@link Hub}), so any number of workers on one client hold
 * one pooled connection, not one each (a pool of 8 would otherwise run dry at 8 workers and hang every
 * claim). {@code onWake} runs for every notice and after every (re)subscribe, since notices published while
 * disconnected are lost. A dropped connection is reopened with backoff (50 ms doubling to 5 s). Threadsafe.
 */
public final class WakeSubscriber {
    private static final Logger LOG = LoggerFactory.getLogger(WakeSubscriber.class);
    private static final long MIN_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 5_000;
    private static final Map<UnifiedJedis, Hub> HUBS = new IdentityHashMap<>();

    private final UnifiedJedis redis;
    private final String channel;
    private final Runnable onWake;
    private final String threadName;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Creates a subscription; {@link #start()} opens it. */
    public WakeSubscriber(UnifiedJedis redis, byte[] channel, Runnable onWake, String threadName) {
        this.redis = redis;
        this.channel = new String(channel, StandardCharsets.ISO_8859_1);
        this.onWake = onWake;
        this.threadName = threadName;
    }

    /** Subscribes (sharing the client's hub, starting it if needed). */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Hub hub;
        synchronized (HUBS) {
            hub = HUBS.computeIfAbsent(redis, r -> new Hub(r, threadName));
            hub.add(channel, onWake);
        }
        onWake.run();
    }

    /** Unsubscribes; the hub stops with its last subscription. Idempotent. */
    public void close() {
        if (!started.get() || !closed.compareAndSet(false, true)) {
            return;
        }
        Hub stop = null;
        synchronized (HUBS) {
            Hub hub = HUBS.get(redis);
            if (hub != null && hub.remove(channel, onWake)) {
                HUBS.remove(redis);
                stop = hub;
            }
        }
        if (stop != null) {
            stop.close();
        }
    }

    /** One pub/sub connection and thread per client, multiplexing the channels of every worker on it. */
    private static final class Hub {
        private final UnifiedJedis redis;
        private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
        private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean closed = new AtomicBoolean();
        private final Thread thread;
        private volatile BinaryJedisPubSub current;

        Hub(UnifiedJedis redis, String threadName) {
            this.redis = redis;
            this.thread = new Thread(this::run, threadName);
            this.thread.setDaemon(true);
        }

        /** Called under the HUBS lock. */
        void add(String channel, Runnable onWake) {
            boolean fresh = listeners.isEmpty();
            listeners.computeIfAbsent(channel, c -> new CopyOnWriteArraySet<>()).add(onWake);
            if (fresh && !thread.isAlive()) {
                thread.start();
            } else {
                sync();
            }
        }

        /** Called under the HUBS lock; true when the hub has no listener left. */
        boolean remove(String channel, Runnable onWake) {
            Set<Runnable> set = listeners.get(channel);
            if (set != null) {
                set.remove(onWake);
                if (set.isEmpty()) {
                    listeners.remove(channel);
                    if (!listeners.isEmpty()) {
                        // the last channel is left to close(): ending the subscription twice would send a
                        // stray UNSUBSCRIBE on a connection already back in the pool
                        unsubscribeOne(channel);
                    }
                }
            }
            return listeners.isEmpty();
        }

        /** Writes to the subscribed connection are serialised on the hub. */
        private synchronized void unsubscribeOne(String channel) {
            BinaryJedisPubSub pubSub = current;
            if (pubSub != null && pubSub.isSubscribed() && subscribed.remove(channel)) {
                try {
                    pubSub.unsubscribe(bytes(channel));
                } catch (RuntimeException e) {
                    LOG.debug("unsubscribe failed: {}", e.toString());
                }
            }
        }

        /** Subscribes channels that have listeners but no subscription yet, on the live connection. */
        private synchronized void sync() {
            if (closed.get()) {
                return;
            }
            BinaryJedisPubSub pubSub = current;
            if (pubSub == null || !pubSub.isSubscribed()) {
                return; // the run loop subscribes everything when it (re)connects
            }
            List<byte[]> missing = new ArrayList<>();
            for (String ch : listeners.keySet()) {
                if (subscribed.add(ch)) {
                    missing.add(bytes(ch));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    pubSub.subscribe(missing.toArray(new byte[0][]));
                } catch (RuntimeException e) {
                    LOG.debug("subscribe failed, the reconnect will retry: {}", e.toString());
                }
            }
        }

        private void wakeAll() {
            listeners.values().forEach(set -> set.forEach(Runnable::run));
        }

        private void run() {
            long backoff = MIN_BACKOFF_MS;
            while (!closed.get()) {
                BinaryJedisPubSub pubSub = new BinaryJedisPubSub() {
                    @Override
                    public void onMessage(byte[] ch, byte[] message) {
                        Set<Runnable> set = listeners.get(new String(ch, StandardCharsets.ISO_8859_1));
                        if (set != null) {
                            set.forEach(Runnable::run);
                        }
                    }

                    @Override
                    public void onSubscribe(byte[] ch, int subscribedChannels) {
                        if (closed.get()) {
                            unsubscribe();
                            return;
                        }
                        Set<Runnable> set = listeners.get(new String(ch, StandardCharsets.ISO_8859_1));
                        if (set != null) {
                            set.forEach(Runnable::run);
                        }
                        sync(); // channels added while this connection was being opened
                    }
                };
                subscribed.clear();
                List<byte[]> all = new ArrayList<>();
                for (String ch : listeners.keySet()) {
                    subscribed.add(ch);
                    all.add(bytes(ch));
                }
                if (all.isEmpty()) {
                    return;
                }
                current = pubSub;
                try {
                    redis.subscribe(pubSub, all.toArray(new byte[0][]));
                    backoff = MIN_BACKOFF_MS; // a clean unsubscribe: only happens on close
                } catch (RuntimeException e) {
                    if (closed.get()) {
                        break;
                    }
                    LOG.debug("wake subscription lost, reconnecting in {} ms: {}", backoff, e.toString());
                    wakeAll(); // let the workers poll instead of trusting notices while we reconnect
                    try {
                        Thread.sleep(backoff);
                    } catch (InterruptedException ie) {
                        break;
                    }
                    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                }
            }
        }

        void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            synchronized (this) {
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
            }
            thread.interrupt();
            try {
                thread.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static byte[] bytes(String channel) {
            return channel.getBytes(StandardCharsets.ISO_8859_1);
        }
    }
}
