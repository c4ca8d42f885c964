package io.github.deferlock.delay.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisShardedPubSub;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Wake notices on a Redis 7.0+ cluster through sharded pub/sub: one {@code SSUBSCRIBE} connection per master
 * that serves a watched wake channel (each {@code SSUBSCRIBE} names channels of one slot), so a notice
 * travels only within its queue's shard. Each connection lives on its own daemon thread; when it ends — the
 * node died or restarted, its slots moved (the server then unsubscribes the channels), or it has nothing left
 * to watch — its channels are routed again from a refreshed slot map (with backoff, 50 ms doubling to 1 s)
 * and their workers are woken to poll, since notices may have been missed. The same approach as lock-core's
 * release notices, without depending on it. Threadsafe.
 */
final class ShardedWakeHub implements WakeSubscriber.WakeHub {
    private static final Logger LOG = LoggerFactory.getLogger(ShardedWakeHub.class);
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisClusterClient cluster;
    private final String threadName;

    // all guarded by this
    private final Map<ByteBuffer, Set<Runnable>> listeners = new HashMap<>();
    private final Map<String, Shard> shards = new HashMap<>();
    private final Map<ByteBuffer, Shard> routes = new HashMap<>();
    private boolean closed;

    ShardedWakeHub(RedisClusterClient cluster, String threadName) {
        this.cluster = cluster;
        this.threadName = threadName;
    }

    @Override
    public synchronized void add(String channel, Runnable onWake) {
        if (closed) {
            return;
        }
        ByteBuffer ch = ByteBuffer.wrap(channel.getBytes(StandardCharsets.ISO_8859_1));
        Set<Runnable> set = listeners.computeIfAbsent(ch, c -> new CopyOnWriteArraySet<>());
        set.add(onWake);
        if (set.size() == 1) {
            route(ch, 0);
        }
    }

    @Override
    public synchronized boolean remove(String channel, Runnable onWake) {
        ByteBuffer ch = ByteBuffer.wrap(channel.getBytes(StandardCharsets.ISO_8859_1));
        Set<Runnable> set = listeners.get(ch);
        if (set != null && set.remove(onWake) && set.isEmpty()) {
            listeners.remove(ch);
            Shard shard = routes.remove(ch);
            if (shard != null) {
                shard.channels.remove(ch);
                if (shard.channels.isEmpty()) {
                    // retire it: nothing may be sent on it after the final SUNSUBSCRIBE, or a reply would be
                    // left on a pooled connection; a later channel for that node gets a new shard
                    shards.remove(shard.node, shard);
                    shard.retired = true;
                    if (shard.pubSub != null) {
                        send(shard.pubSub::sunsubscribe);
                    }
                    LockSupport.unpark(shard.thread);
                } else if (shard.pubSub != null) {
                    send(() -> shard.pubSub.sunsubscribe(ch.array()));
                }
            }
        }
        return listeners.isEmpty();
    }

    /** Puts {@code channel} on the shard of the node serving its slot, starting that shard if needed. */
    private void route(ByteBuffer channel, long delayNanos) {
        String node;
        try (Connection c = cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(channel.array()))) {
            node = c.getHostAndPort().toString();
        } catch (RuntimeException e) {
            LOG.debug("no node for a wake channel yet; its workers poll: {}", e.toString());
            node = "?";
        }
        Shard shard = shards.get(node);
        if (shard == null) {
            shard = new Shard(node, delayNanos);
            shards.put(node, shard);
        }
        shard.channels.add(channel);
        routes.put(channel, shard);
        if (shard.pubSub != null) {
            Shard s = shard;
            send(() -> s.pubSub.ssubscribe(channel.array()));
        }
        shard.startIfNeeded();
    }

    private static void send(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            LOG.debug("sharded pub/sub command failed; the connection is being replaced: {}", e.toString());
        }
    }

    @Override
    public void close() {
        List<Shard> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(shards.values());
            shards.clear();
            listeners.clear();
            routes.clear();
            for (Shard s : all) {
                s.channels.clear();
                s.retired = true;
                if (s.pubSub != null) {
                    send(s.pubSub::sunsubscribe);
                }
            }
        }
        for (Shard s : all) {
            if (s.thread != null) {
                LockSupport.unpark(s.thread);
            }
        }
    }

    private void wake(Iterable<ByteBuffer> channels) {
        List<Runnable> wakes = new ArrayList<>();
        synchronized (this) {
            for (ByteBuffer ch : channels) {
                Set<Runnable> set = listeners.get(ch);
                if (set != null) {
                    wakes.addAll(set);
                }
            }
        }
        wakes.forEach(Runnable::run);
    }

    /** One node's subscription connection. Fields guarded by the hub's monitor. */
    private final class Shard {
        final String node;
        final Set<ByteBuffer> channels = new LinkedHashSet<>();
        final long delayNanos;
        Notices pubSub;
        Thread thread;
        boolean retired;

        Shard(String node, long delayNanos) {
            this.node = node;
            this.delayNanos = delayNanos;
        }

        void startIfNeeded() {
            if (thread == null) {
                thread = new Thread(this::run, threadName + "-" + node);
                thread.setDaemon(true);
                thread.start();
            }
        }

        private void run() {
            if (delayNanos > 0) {
                LockSupport.parkNanos(delayNanos);
            }
            boolean failed = false;
            Map.Entry<Integer, List<byte[]>> first = null;
            synchronized (ShardedWakeHub.this) {
                if (!retired && !node.equals("?")) {
                    Map<Integer, List<byte[]>> bySlot = bySlot();
                    first = bySlot.isEmpty()
                            ? null
                            : bySlot.entrySet().iterator().next();
                }
            }
            if (first != null) {
                try (Connection c = cluster.getConnectionFromSlot(first.getKey())) {
                    if (c.getHostAndPort().toString().equals(node)) {
                        new Notices(this).proceed(c, first.getValue().toArray(byte[][]::new));
                    } else {
                        failed = true; // the slot map changed since routing
                    }
                } catch (RuntimeException e) {
                    LOG.debug("sharded wake subscription to {} dropped: {}", node, e.toString());
                    failed = true;
                }
            } else {
                failed = node.equals("?");
            }
            if (failed) {
                try {
                    cluster.refreshClusterTopology();
                } catch (RuntimeException e) {
                    LOG.debug("cannot refresh the cluster slot map: {}", e.toString());
                }
            }
            dissolve(failed);
        }

        /** Ends this shard: routes its still-watched channels again and wakes their workers. */
        private void dissolve(boolean failed) {
            List<ByteBuffer> rerouted = new ArrayList<>();
            synchronized (ShardedWakeHub.this) {
                pubSub = null;
                shards.remove(node, this);
                long backoff = failed ? Math.min(MAX_BACKOFF_NANOS, Math.max(MIN_BACKOFF_NANOS, delayNanos * 2)) : 0;
                for (ByteBuffer channel : List.copyOf(channels)) {
                    routes.remove(channel, this);
                    if (listeners.containsKey(channel) && !closed) {
                        rerouted.add(channel);
                        route(channel, backoff);
                    }
                }
                channels.clear();
            }
            wake(rerouted); // notices may have been missed: poll now
        }

        /** This shard's channels grouped by slot (one SSUBSCRIBE per slot). */
        Map<Integer, List<byte[]>> bySlot() {
            Map<Integer, List<byte[]>> out = new LinkedHashMap<>();
            for (ByteBuffer ch : channels) {
                out.computeIfAbsent(JedisClusterCRC16.getSlot(ch.array()), s -> new ArrayList<>())
                        .add(ch.array());
            }
            return out;
        }

        void connected(Notices notices) {
            List<ByteBuffer> all;
            synchronized (ShardedWakeHub.this) {
                if (closed || retired || channels.isEmpty()) {
                    retired = true;
                    send(notices::sunsubscribe);
                    return;
                }
                pubSub = notices;
                // channels routed here while connecting, one SSUBSCRIBE per slot (re-subscribing is harmless)
                bySlot().values().forEach(list -> send(() -> notices.ssubscribe(list.toArray(byte[][]::new))));
                all = List.copyOf(channels);
            }
            wake(all);
        }

        void unsubscribed(Notices notices, byte[] channel, int left) {
            synchronized (ShardedWakeHub.this) {
                if (pubSub == notices && !retired && routes.get(ByteBuffer.wrap(channel)) == this) {
                    // the server dropped a channel we still watch: its slot moved; end this connection, reroute
                    retired = true;
                    shards.remove(node, this);
                    if (left > 0) { // at 0 the subscription ends by itself: a reply to more would be left over
                        send(notices::sunsubscribe);
                    }
                }
            }
        }
    }

    private final class Notices extends BinaryJedisShardedPubSub {
        private final Shard shard;
        private boolean first = true;

        Notices(Shard shard) {
            this.shard = shard;
        }

        @Override
        public void onSSubscribe(byte[] channel, int subscribedChannels) {
            if (first) {
                first = false;
                shard.connected(this);
            }
            wake(List.of(ByteBuffer.wrap(channel))); // subscribed now: a notice just before it was missed
        }

        @Override
        public void onSUnsubscribe(byte[] channel, int subscribedChannels) {
            shard.unsubscribed(this, channel, subscribedChannels);
        }

        @Override
        public void onSMessage(byte[] channel, byte[] message) {
            wake(List.of(ByteBuffer.wrap(channel)));
        }
    }
}
