package io.github.deferlock.delay.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A subscription to one queue's wake channel. All subscriptions made through one {@link UnifiedJedis} share
 * one pub/sub connection and one daemon thread (a {@link Hub}), so any number of workers on one client hold
 * one pooled connection, not one each (a pool of 8 would otherwise run dry at 8 workers and hang every
 * claim). On a Redis 7.0+ cluster ({@link RedisClusterClient}) the hub is a {@link ShardedWakeHub} instead:
 * {@code SSUBSCRIBE}, one connection per master that serves a watched channel, matching the scripts'
 * {@code SPUBLISH} (see {@link #publishFlag(UnifiedJedis)}); elsewhere plain {@code SUBSCRIBE}, which a
 * 6.2 cluster broadcasts to every node. {@code onWake} runs for every notice and after every (re)subscribe, since notices published while
 * disconnected are lost. A dropped connection is reopened with backoff (50 ms doubling to 5 s). Threadsafe.
 */
public final class WakeSubscriber {
    private static final Logger LOG = LoggerFactory.getLogger(WakeSubscriber.class);
    private static final long MIN_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 5_000;
    private static final Map<UnifiedJedis, WakeHub> HUBS = new IdentityHashMap<>();
    /** Per cluster client: whether it has sharded pub/sub; only definite answers are kept. */
    private static final Map<UnifiedJedis, Boolean> SHARDED = new WeakHashMap<>();

    private static final byte[] SPUBLISH = {'1'};
    private static final byte[] PUBLISH = {'0'};

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
        boolean sharded = Arrays.equals(publishFlag(redis), SPUBLISH);
        synchronized (HUBS) {
            WakeHub hub = HUBS.computeIfAbsent(
                    redis,
                    r -> sharded ? new ShardedWakeHub((RedisClusterClient) r, threadName) : new Hub(r, threadName));
            hub.add(channel, onWake);
        }
        onWake.run();
    }

    /** Unsubscribes; the hub stops with its last subscription. Idempotent. */
    public void close() {
        if (!started.get() || !closed.compareAndSet(false, true)) {
            return;
        }
        WakeHub stop = null;
        synchronized (HUBS) {
            WakeHub hub = HUBS.get(redis);
            if (hub != null && hub.remove(channel, onWake)) {
                HUBS.remove(redis);
                stop = hub;
            }
        }
        if (stop != null) {
            stop.close();
        }
    }

    /**
     * The scripts' publish flag for {@code redis}: {@code 1} (SPUBLISH) on a cluster client whose servers
     * have sharded pub/sub (Redis 7.0+), {@code 0} (PUBLISH) otherwise; null when a cluster cannot say yet
     * (the caller publishes plainly for now and asks again). Cluster answers are cached per client.
     */
    public static byte[] publishFlag(UnifiedJedis redis) {
        if (!(redis instanceof RedisClusterClient cluster)) {
            return PUBLISH;
        }
        Boolean known;
        synchronized (SHARDED) {
            known = SHARDED.get(redis);
        }
        if (known == null) {
            try {
                cluster.spublish("deferlock:probe", "");
                known = true;
            } catch (JedisDataException e) {
                if (!String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("unknown command")) {
                    LOG.debug("cannot tell whether the cluster has sharded pub/sub: {}", e.toString());
                    return null;
                }
                known = false;
            } catch (JedisException e) {
                LOG.debug("cannot tell whether the cluster has sharded pub/sub: {}", e.toString());
                return null;
            }
            synchronized (SHARDED) {
                SHARDED.put(redis, known);
            }
        }
        return known ? SPUBLISH : PUBLISH;
    }

    /** Where a client's subscriptions live. Called under the HUBS lock except {@link #close()}. */
    interface WakeHub {
        /** Starts delivering notices of {@code channel} to {@code onWake}. */
        void add(String channel, Runnable onWake);

        /** Stops delivering to {@code onWake}; true when the hub has no listener left. */
        boolean remove(String channel, Runnable onWake);

        /** Ends every subscription. Idempotent. */
        void close();
    }

    /** One pub/sub connection and thread per client, multiplexing the channels of every worker on it. */
    private static final class Hub implements WakeHub {
        private final UnifiedJedis redis;
        private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
        private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean closed = new AtomicBoolean();
        /** The final UNSUBSCRIBE goes out once: a second one's reply would be left on a pooled connection. */
        private final AtomicBoolean unsubscribeSent = new AtomicBoolean();

        private final Thread thread;
        private volatile BinaryJedisPubSub current;

        Hub(UnifiedJedis redis, String threadName) {
            this.redis = redis;
            this.thread = new Thread(this::run, threadName);
            this.thread.setDaemon(true);
        }

        /** Called under the HUBS lock. */
        @Override
        public void add(String channel, Runnable onWake) {
            boolean fresh = listeners.isEmpty();
            listeners.computeIfAbsent(channel, c -> new CopyOnWriteArraySet<>()).add(onWake);
            if (fresh && !thread.isAlive()) {
                thread.start();
            } else {
                sync();
            }
        }

        /** Called under the HUBS lock; true when the hub has no listener left. */
        @Override
        public boolean remove(String channel, Runnable onWake) {
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
                            if (unsubscribeSent.compareAndSet(false, true)) {
                                unsubscribe();
                            }
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

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            synchronized (this) {
                BinaryJedisPubSub pubSub = current;
                if (pubSub != null) {
                    try {
                        if (pubSub.isSubscribed() && unsubscribeSent.compareAndSet(false, true)) {
                            pubSub.unsubscribe();
                        }
                    } catch (RuntimeException e) {
                        LOG.debug("unsubscribe failed: {}", e.toString());
                    }
                }
            }
            // no thread.interrupt(): Jedis's pub/sub loop stops reading when its thread is interrupted and
            // hands the connection back to the pool with our UNSUBSCRIBE reply still unread, so the next
            // command on that connection would get it. A thread sleeping in its reconnect backoff sees
            // `closed` when it wakes (within 5 s; it is a daemon).
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
