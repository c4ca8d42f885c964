package io.github.deferlock.lock.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisShardedPubSub;
import redis.clients.jedis.Connection;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Release notices on a Redis 7.0+ cluster through sharded pub/sub: one {@code SSUBSCRIBE} connection per
 * master that serves a watched channel (each {@code SSUBSCRIBE} command names channels of one slot), so a
 * notice travels only within its shard. Each connection lives on its own daemon thread; when it ends — the
 * node died or restarted, its slots moved (the server then unsubscribes the channels), or it has nothing
 * left to watch — its channels are routed again from a refreshed slot map and their waiters are signalled
 * to look again. Waiters poll meanwhile, so a lost subscription costs latency, never a stall. Threadsafe.
 */
final class ShardedSubscriber implements ReleaseNotices {
    private static final Logger LOG = LoggerFactory.getLogger(ShardedSubscriber.class);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ClusterAccess cluster;

    // all guarded by this
    private final Map<ByteBuffer, List<KeyState>> watched = new HashMap<>();
    private final Map<String, Shard> shards = new HashMap<>();
    private final Map<ByteBuffer, Shard> routes = new HashMap<>();
    private boolean closed;

    ShardedSubscriber(ClusterAccess cluster) {
        this.cluster = cluster;
    }

    @Override
    public synchronized void watch(KeyState st) {
        if (closed) {
            return;
        }
        ByteBuffer channel = ByteBuffer.wrap(st.channel);
        List<KeyState> list = watched.computeIfAbsent(channel, c -> new ArrayList<>());
        list.add(st);
        if (list.size() == 1) {
            route(channel, 0);
        }
    }

    @Override
    public synchronized void unwatch(KeyState st) {
        ByteBuffer channel = ByteBuffer.wrap(st.channel);
        List<KeyState> list = watched.get(channel);
        if (list == null || !list.remove(st) || !list.isEmpty()) {
            return;
        }
        watched.remove(channel);
        Shard shard = routes.remove(channel);
        if (shard != null) {
            shard.channels.remove(channel);
            Notices pubSub = shard.pubSub;
            if (pubSub != null) {
                if (shard.channels.isEmpty()) {
                    // this SUNSUBSCRIBE ends the connection's subscription and Jedis hands the connection back
                    // to the pool: retire the shard, so nothing more is sent on it (a later SSUBSCRIBE's reply
                    // would be left for the pool's next user); the next watch opens a fresh shard
                    shard.pubSub = null;
                    shards.remove(shard.node, shard);
                }
                send(() -> pubSub.sunsubscribe(channel.array()));
            }
        }
    }

    /** Puts {@code channel} on the shard of the node serving its slot, starting that shard if needed. */
    private void route(ByteBuffer channel, long backoff) {
        String node;
        try (Connection c = cluster.connectionFromSlot(JedisClusterCRC16.getSlot(channel.array()))) {
            node = c.getHostAndPort().toString();
        } catch (RuntimeException e) {
            LOG.debug("no node for a release channel yet; its waiters poll", e);
            node = "?";
        }
        Shard shard = shards.get(node);
        if (shard == null) {
            shard = new Shard(node, backoff);
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
            LOG.debug("sharded pub/sub command failed; the connection is being replaced", e);
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
            watched.clear();
            routes.clear();
        }
        for (Shard s : all) {
            synchronized (this) {
                s.channels.clear();
                if (s.pubSub != null) {
                    send(s.pubSub::sunsubscribe);
                }
            }
            if (s.thread != null) {
                LockSupport.unpark(s.thread);
            }
        }
    }

    /** One node's subscription connection. Fields guarded by the subscriber's monitor. */
    private final class Shard {
        final String node;
        final Set<ByteBuffer> channels = new LinkedHashSet<>();
        final long delayNanos;
        Notices pubSub;
        Thread thread;

        Shard(String node, long delayNanos) {
            this.node = node;
            this.delayNanos = delayNanos;
        }

        void startIfNeeded() {
            if (thread == null) {
                thread = new Thread(this::run, "deferlock-ssubscriber-" + node);
                thread.setDaemon(true);
                thread.start();
            }
        }

        private void run() {
            if (delayNanos > 0) {
                LockSupport.parkNanos(delayNanos);
            }
            boolean failed = false;
            Map<Integer, List<byte[]>> bySlot;
            synchronized (ShardedSubscriber.this) {
                bySlot = bySlot();
            }
            if (!bySlot.isEmpty() && !node.equals("?")) {
                Map.Entry<Integer, List<byte[]>> first =
                        bySlot.entrySet().iterator().next();
                try (Connection c = cluster.connectionFromSlot(first.getKey())) {
                    if (c.getHostAndPort().toString().equals(node)) {
                        Notices notices = new Notices(this);
                        notices.proceed(c, first.getValue().toArray(byte[][]::new));
                    } else {
                        failed = true; // the slot map changed since routing
                    }
                } catch (RuntimeException e) {
                    LOG.debug("sharded release-notice subscription to {} dropped", node, e);
                    failed = true;
                }
            } else {
                failed = node.equals("?");
            }
            if (failed) {
                try {
                    cluster.refresh();
                } catch (RuntimeException e) {
                    LOG.debug("cannot refresh the cluster slot map", e);
                }
            }
            dissolve(failed);
        }

        /** Ends this shard: routes its still-watched channels again and signals their waiters. */
        private void dissolve(boolean failed) {
            List<KeyState> waiters = new ArrayList<>();
            synchronized (ShardedSubscriber.this) {
                pubSub = null;
                shards.remove(node, this);
                long backoff = failed
                        ? Math.min(MAX_BACKOFF_NANOS, Math.max(TimeUnit.MILLISECONDS.toNanos(50), delayNanos * 2))
                        : 0;
                for (ByteBuffer channel : List.copyOf(channels)) {
                    routes.remove(channel, this);
                    List<KeyState> list = watched.get(channel);
                    if (list != null && !closed) {
                        waiters.addAll(list);
                        route(channel, backoff);
                    }
                }
                channels.clear();
            }
            waiters.forEach(KeyState::signal); // notices may have been missed: look again
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
            List<KeyState> waiters = new ArrayList<>();
            synchronized (ShardedSubscriber.this) {
                if (closed || channels.isEmpty()) {
                    send(notices::sunsubscribe);
                    return;
                }
                pubSub = notices;
                // channels routed here while connecting, one SSUBSCRIBE per slot (the first slot's are on)
                bySlot().values().forEach(list -> send(() -> notices.ssubscribe(list.toArray(byte[][]::new))));
                for (ByteBuffer ch : channels) {
                    List<KeyState> list = watched.get(ch);
                    if (list != null) {
                        waiters.addAll(list);
                    }
                }
            }
            waiters.forEach(KeyState::signal);
        }

        void unsubscribed(Notices notices, byte[] channel) {
            synchronized (ShardedSubscriber.this) {
                if (pubSub == notices && routes.get(ByteBuffer.wrap(channel)) == this) {
                    // the server dropped a channel we still watch: its slot moved; end this connection (the
                    // thread then re-routes every channel) and send nothing more on it
                    pubSub = null;
                    send(notices::sunsubscribe);
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
            deliver(channel); // subscribed now: a release just before it would be missed, so look again
        }

        @Override
        public void onSUnsubscribe(byte[] channel, int subscribedChannels) {
            shard.unsubscribed(this, channel);
        }

        @Override
        public void onSMessage(byte[] channel, byte[] message) {
            deliver(channel);
        }
    }

    private void deliver(byte[] channel) {
        List<KeyState> waiters;
        synchronized (this) {
            List<KeyState> list = watched.get(ByteBuffer.wrap(channel));
            waiters = list == null ? List.of() : List.copyOf(list);
        }
        waiters.forEach(KeyState::signal);
    }
}
