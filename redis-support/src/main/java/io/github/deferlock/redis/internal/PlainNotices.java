package io.github.deferlock.redis.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.Connection;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Notices through plain pub/sub: one {@code SUBSCRIBE} connection for every channel, on a daemon thread that
 * runs while there is a channel to hear, or, with an anchor channel, from the first channel until {@link
 * #close()}, so an owner whose listeners come and go often keeps one connection rather than reopening it
 * (standalone, Sentinel, Redis 6.2 clusters, which forward a {@code PUBLISH} to every node). A dropped connection is reopened with backoff (50 ms doubling to 5 s) and every
 * channel's listeners are woken, since notices may have been missed. The connection comes from the client's
 * pool ({@link Topology#ownConnection}) and is closed, never handed back, when its subscription ends: a
 * subscription ended by an error reply (an ACL {@code NOPERM} on a later {@code SUBSCRIBE}) leaves it
 * subscribed to the other channels, and the pool's next user would read their notices as its replies. Nothing
 * is sent on it after its final {@code UNSUBSCRIBE}. A client that does not show its pool subscribes through
 * {@link UnifiedJedis#subscribe}. Threadsafe.
 */
final class PlainNotices implements NoticeTransport {
    private static final Logger LOG = LoggerFactory.getLogger(PlainNotices.class);
    static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Topology topology;
    private final Sink sink;
    private final String threadName;
    private final ByteBuffer anchor; // null: none

    // all guarded by this
    private final Set<ByteBuffer> channels = new LinkedHashSet<>();
    /** The channels the connection is (being) subscribed to. */
    private final Set<ByteBuffer> subscribed = new LinkedHashSet<>();
    /** The confirmed subscription (after its first SUBSCRIBE reply); null while (re)connecting. */
    private Channels current;
    /** The final UNSUBSCRIBE went out on {@link #current}: nothing more may be sent on it. */
    private boolean ending;
    /** A refused subscription was logged at WARN; reset when one is confirmed. */
    private boolean refusalLogged;

    private Thread thread;
    private boolean closed;

    PlainNotices(Topology topology, Sink sink, String threadName, byte[] anchor) {
        this.topology = topology;
        this.sink = sink;
        this.threadName = threadName;
        this.anchor = anchor == null ? null : ByteBuffer.wrap(anchor.clone());
    }

    /** The channels the connection should hold: the listened ones and the anchor. Under this monitor. */
    private Set<ByteBuffer> wanted() {
        Set<ByteBuffer> out = new LinkedHashSet<>(channels);
        if (anchor != null && !closed) {
            out.add(anchor);
        }
        return out;
    }

    @Override
    public synchronized void add(ByteBuffer channel) {
        if (closed || !channels.add(channel)) {
            return;
        }
        if (current != null && !ending && subscribed.add(channel)) {
            send(() -> current.subscribe(channel.array()));
        }
        if (thread == null) {
            thread = new Thread(this::run, threadName);
            thread.setDaemon(true);
            thread.start();
        }
    }

    @Override
    public synchronized void remove(ByteBuffer channel) {
        if (channel.equals(anchor)
                || !channels.remove(channel)
                || current == null
                || ending
                || !subscribed.remove(channel)) {
            return;
        }
        if (subscribed.isEmpty()) {
            end(current); // its reply ends the subscription; the thread stops unless a channel came meanwhile
        } else {
            send(() -> current.unsubscribe(channel.array()));
        }
    }

    /** Sends the final UNSUBSCRIBE of {@code pubSub}, once. Under this monitor. */
    private void end(Channels pubSub) {
        ending = true;
        send(pubSub::unsubscribe);
    }

    private static void send(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            LOG.debug("pub/sub command failed; the connection is being replaced: {}", e.toString());
        }
    }

    private void run() {
        long backoff = MIN_BACKOFF_NANOS;
        while (true) {
            Channels pubSub = new Channels();
            byte[][] all;
            synchronized (this) {
                Set<ByteBuffer> wanted = wanted();
                if (closed || wanted.isEmpty()) {
                    thread = null;
                    return;
                }
                current = null;
                ending = false;
                subscribed.clear();
                subscribed.addAll(wanted);
                all = wanted.stream().map(ByteBuffer::array).toArray(byte[][]::new);
            }
            boolean failed = false;
            Connection own = null;
            try {
                own = topology.ownConnection();
                if (own == null) {
                    topology.redis().subscribe(pubSub, all);
                } else {
                    pubSub.proceed(own, all);
                }
            } catch (JedisDataException e) { // an error reply: Redis refused a channel (an ACL NOPERM)
                failed = true;
                refused(e, backoff);
            } catch (RuntimeException e) {
                failed = true;
                LOG.debug("notice subscription lost, reconnecting in {} ms: {}", backoff / 1_000_000, e.toString());
            } finally {
                if (own != null) {
                    NoticeTransport.discard(own, LOG, "notice subscription");
                }
            }
            List<ByteBuffer> wake;
            synchronized (this) {
                current = null;
                if (closed || wanted().isEmpty()) {
                    thread = null;
                    return;
                }
                wake = new ArrayList<>(channels);
            }
            sink.wake(wake); // notices may have been missed: look again
            if (failed) {
                LockSupport.parkNanos(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            } else {
                backoff = MIN_BACKOFF_NANOS; // ended cleanly while channels came: subscribe them at once
            }
        }
    }

    /**
     * Says, once until a subscription is confirmed again, that Redis refused it: the listeners of every channel
     * then hear nothing but the wake-ups of each retry.
     */
    private void refused(JedisDataException e, long backoff) {
        boolean first;
        synchronized (this) {
            first = !refusalLogged;
            refusalLogged = true;
        }
        String text = "Redis refused the notice subscription ({}), tried again in {} ms; the listeners are woken at"
                + " each try. Check the ACL of the client's user: it must allow the deferlock channels";
        if (first) {
            LOG.warn(text, e.getMessage(), backoff / 1_000_000);
        } else {
            LOG.debug(text, e.getMessage(), backoff / 1_000_000);
        }
    }

    /** The first SUBSCRIBE reply of {@code pubSub}: it is live; catch up with what changed while connecting. */
    private void connected(Channels pubSub) {
        List<ByteBuffer> wake;
        synchronized (this) {
            if (closed) {
                end(pubSub);
                return;
            }
            current = pubSub;
            refusalLogged = false;
            Set<ByteBuffer> wanted = wanted();
            List<ByteBuffer> missing = new ArrayList<>();
            for (ByteBuffer ch : wanted) {
                if (subscribed.add(ch)) {
                    missing.add(ch);
                }
            }
            List<ByteBuffer> dropped = new ArrayList<>();
            for (Iterator<ByteBuffer> it = subscribed.iterator(); it.hasNext(); ) {
                ByteBuffer ch = it.next();
                if (!wanted.contains(ch)) {
                    dropped.add(ch);
                    it.remove();
                }
            }
            if (wanted.isEmpty()) {
                end(pubSub);
                return;
            }
            if (!missing.isEmpty()) { // first, so the subscription never drops to 0 channels midway
                send(() ->
                        pubSub.subscribe(missing.stream().map(ByteBuffer::array).toArray(byte[][]::new)));
            }
            if (!dropped.isEmpty()) {
                send(() -> pubSub.unsubscribe(
                        dropped.stream().map(ByteBuffer::array).toArray(byte[][]::new)));
            }
            wake = new ArrayList<>(channels);
        }
        sink.wake(wake);
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            channels.clear();
            if (current != null && !ending) {
                end(current);
            }
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            // no interrupt: Jedis's pub/sub loop stops reading when its thread is interrupted, with our
            // UNSUBSCRIBE reply unread (a client that hides its pool would get that connection back); a thread
            // in its backoff is woken
            LockSupport.unpark(t);
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final class Channels extends BinaryJedisPubSub {
        private boolean first = true; // only the subscription's reader thread reads it

        @Override
        public void onSubscribe(byte[] channel, int subscribedChannels) {
            if (first) {
                first = false;
                connected(this);
            }
            sink.wake(List.of(ByteBuffer.wrap(channel))); // subscribed now: a notice just before was missed
        }

        @Override
        public void onMessage(byte[] channel, byte[] message) {
            sink.wake(List.of(ByteBuffer.wrap(channel)));
        }
    }

    /** For tests: whether a subscription thread runs. */
    synchronized boolean running() {
        return thread != null;
    }

    /** For tests: the channels this transport should hear. */
    synchronized Collection<ByteBuffer> channels() {
        return List.copyOf(channels);
    }
}
