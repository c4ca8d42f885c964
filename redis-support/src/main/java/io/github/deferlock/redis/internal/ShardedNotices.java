package io.github.deferlock.redis.internal;

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
 * Notices on a Redis 7.0+ cluster through sharded pub/sub: one {@code SSUBSCRIBE} connection per master
 * that serves a channel (each {@code SSUBSCRIBE} names channels of one slot), so a notice travels only
 * within its shard. Each connection lives on its own daemon thread; when it ends (the node died or
 * restarted, its slots moved and the server unsubscribed the channels, or it has nothing left to hear) its
 * channels are routed again from a refreshed slot map, with backoff (50 ms doubling to 1 s) after a failure,
 * and their listeners are woken, since notices may have been missed.
 *
 * <p>A shard's connection is borrowed from the client's pool for the subscription's life and never handed back:
 * when the subscription ends, however it ends, the shard is retired (nothing more is sent on it) and the
 * connection is closed, so the pool opens a fresh one. Handing it back is not safe: the subscription can end
 * with the connection still subscribed (an {@code SSUBSCRIBE} routed by a stale slot map is answered by {@code
 * MOVED}, which ends the reading loop) or with a reply still on its way (an {@code SSUBSCRIBE} sent just as the
 * server dropped the shard's last channel), and the pool's next user, a lock or queue script, would read that
 * reply or a notice as its own. A later channel for that node gets a new shard. Threadsafe.
 */
final class ShardedNotices implements NoticeTransport {
    private static final Logger LOG = LoggerFactory.getLogger(ShardedNotices.class);
    static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String UNKNOWN_NODE = "?";

    private final Topology topology;
    private final Sink sink;
    private final String threadName;

    // all guarded by this
    private final Set<ByteBuffer> channels = new LinkedHashSet<>();
    private final Map<String, Shard> shards = new HashMap<>();
    private final Map<ByteBuffer, Shard> routes = new HashMap<>();
    private boolean closed;

    ShardedNotices(Topology topology, Sink sink, String threadName) {
        this.topology = topology;
        this.sink = sink;
        this.threadName = threadName;
    }

    @Override
    public synchronized void add(ByteBuffer channel) {
        if (closed || !channels.add(channel)) {
            return;
        }
        route(channel, 0);
    }

    @Override
    public synchronized void remove(ByteBuffer channel) {
        if (!channels.remove(channel)) {
            return;
        }
        Shard shard = routes.remove(channel);
        if (shard == null) {
            return;
        }
        shard.channels.remove(channel);
        if (shard.channels.isEmpty()) {
            shard.retire();
        } else if (shard.pubSub != null) {
            Notices pubSub = shard.pubSub;
            send(() -> pubSub.sunsubscribe(channel.array()));
        }
    }

    /** Puts {@code channel} on the shard of the node serving its slot, starting that shard if needed. */
    private void route(ByteBuffer channel, long delayNanos) {
        String node;
        try (Connection c = topology.connectionForSlot(JedisClusterCRC16.getSlot(channel.array()))) {
            node = c.getHostAndPort().toString();
        } catch (RuntimeException e) {
            LOG.debug("no node for a notice channel yet; its listeners poll: {}", e.toString());
            node = UNKNOWN_NODE;
        }
        Shard shard = shards.get(node);
        if (shard == null) {
            shard = new Shard(node, delayNanos);
            shards.put(node, shard);
        }
        shard.channels.add(channel);
        routes.put(channel, shard);
        if (shard.pubSub != null) {
            Notices pubSub = shard.pubSub;
            send(() -> pubSub.ssubscribe(channel.array()));
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
            channels.clear();
            routes.clear();
            for (Shard s : all) {
                s.channels.clear();
                s.retire();
            }
        }
    }

    /** For tests: how many shards (subscription connections) exist. */
    synchronized int shardCount() {
        return shards.size();
    }

    /** One node's subscription connection. Fields guarded by the transport's monitor. */
    private final class Shard {
        final String node;
        final Set<ByteBuffer> channels = new LinkedHashSet<>();
        final long delayNanos;
        Notices pubSub;
        Thread thread;
        /** Ended or ending: nothing more is sent on its connection, and it routes nothing. */
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

        /** Ends this shard: a final SUNSUBSCRIBE (once) and a wake-up of its thread. Under the monitor. */
        void retire() {
            shards.remove(node, this);
            if (!retired) {
                retired = true;
                if (pubSub != null) {
                    send(pubSub::sunsubscribe);
                }
            }
            if (thread != null) {
                LockSupport.unpark(thread); // cut a backoff short: it sees `retired` and ends
            }
        }

        private void run() {
            if (delayNanos > 0) {
                LockSupport.parkNanos(delayNanos);
            }
            boolean failed = false;
            Map.Entry<Integer, List<byte[]>> first = null;
            synchronized (ShardedNotices.this) {
                if (!retired && !node.equals(UNKNOWN_NODE)) {
                    Map<Integer, List<byte[]>> bySlot = bySlot();
                    first = bySlot.isEmpty()
                            ? null
                            : bySlot.entrySet().iterator().next();
                }
            }
            if (first != null) {
                Connection c = null;
                boolean subscribing = false;
                try {
                    c = topology.connectionForSlot(first.getKey());
                    if (c.getHostAndPort().toString().equals(node)) {
                        subscribing = true;
                        new Notices(this).proceed(c, first.getValue().toArray(byte[][]::new));
                    } else {
                        failed = true; // the slot map changed since routing
                    }
                } catch (RuntimeException e) {
                    LOG.debug("sharded notice subscription to {} dropped: {}", node, e.toString());
                    failed = true;
                } finally {
                    if (c != null) {
                        if (subscribing) {
                            endConnection(c);
                        } else {
                            c.close(); // nothing was sent on it: back to the pool
                        }
                    }
                }
            } else {
                failed = node.equals(UNKNOWN_NODE);
            }
            if (failed) {
                try {
                    topology.refreshSlots();
                } catch (RuntimeException e) {
                    LOG.debug("cannot refresh the cluster slot map: {}", e.toString());
                }
            }
            dissolve(failed);
        }

        /**
         * Retires this shard, so nothing more is sent on its connection, then closes the connection instead of
         * handing it back to the pool: it may still be subscribed or have a reply on its way (see the class
         * comment). The pool opens a new connection when it needs one.
         */
        private void endConnection(Connection c) {
            synchronized (ShardedNotices.this) {
                retired = true;
                pubSub = null;
                shards.remove(node, this);
            }
            // closing a dead socket can fail: logged, and the channels are still routed again
            NoticeTransport.discard(c, LOG, "sharded subscription to " + node);
        }

        /** Ends this shard: routes its still-wanted channels again and wakes their listeners. */
        private void dissolve(boolean failed) {
            List<ByteBuffer> rerouted = new ArrayList<>();
            synchronized (ShardedNotices.this) {
                pubSub = null;
                retired = true;
                shards.remove(node, this);
                long backoff = failed ? Math.min(MAX_BACKOFF_NANOS, Math.max(MIN_BACKOFF_NANOS, delayNanos * 2)) : 0;
                for (ByteBuffer channel : List.copyOf(channels)) {
                    routes.remove(channel, this);
                    if (ShardedNotices.this.channels.contains(channel) && !closed && !routes.containsKey(channel)) {
                        rerouted.add(channel);
                        route(channel, backoff);
                    }
                }
                channels.clear();
            }
            if (!rerouted.isEmpty()) {
                sink.wake(rerouted); // notices may have been missed: look now
            }
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
            synchronized (ShardedNotices.this) {
                if (closed || retired || channels.isEmpty()) {
                    retired = true;
                    shards.remove(node, this);
                    send(notices::sunsubscribe);
                    return;
                }
                pubSub = notices;
                // channels routed here while connecting, one SSUBSCRIBE per slot (subscribing again is harmless)
                bySlot().values().forEach(list -> send(() -> notices.ssubscribe(list.toArray(byte[][]::new))));
                all = List.copyOf(channels);
            }
            sink.wake(all);
        }

        void unsubscribed(Notices notices, byte[] channel, int left) {
            synchronized (ShardedNotices.this) {
                if (pubSub == notices && !retired && routes.get(ByteBuffer.wrap(channel)) == this) {
                    // the server dropped a channel still wanted: its slot moved; end this connection (its thread
                    // then routes every channel again) and send nothing more on it
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
            sink.wake(List.of(ByteBuffer.wrap(channel))); // subscribed now: a notice just before it was missed
        }

        @Override
        public void onSUnsubscribe(byte[] channel, int subscribedChannels) {
            shard.unsubscribed(this, channel, subscribedChannels);
        }

        @Override
        public void onSMessage(byte[] channel, byte[] message) {
            sink.wake(List.of(ByteBuffer.wrap(channel)));
        }
    }
}
