package io.github.deferlock.redis.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Notices (a lock was released, a job became due) for the listeners of one client owner, over plain or
 * sharded pub/sub as the {@link Topology} says: {@link ShardedNotices} on a Redis 7.0+ cluster client that
 * routes by slot, {@link PlainNotices} otherwise. One bus holds at most one subscription connection per node
 * however many listeners it has (a pool of 8 would otherwise run dry at 8 listeners), and only while it has
 * listeners. The object that owns the client's use (a {@code RedisLocks}, a {@code DelayQueue}) builds one bus
 * and closes it with itself; there is no bus per client anywhere else.
 *
 * <p>A listener runs for every notice on its channel, after every (re)subscription, and after a lost
 * connection: a notice published while not subscribed is lost, so a listener treats each call as "look
 * again", and its owner also polls with a bounded backoff ({@link FallbackPoll}), so a lost notice costs
 * latency, never a stall. Listeners run on the subscription threads: they must be quick and must not block.
 * When a cluster cannot yet say whether it has sharded pub/sub, the choice is made later (the bus asks
 * again, with backoff, on a daemon thread) and listeners hear nothing until then. Threadsafe.
 */
public final class NoticeBus implements AutoCloseable {
    private final Topology topology;
    private final String threadName;
    private final byte[] anchor;

    // all guarded by this
    private final Map<ByteBuffer, List<Runnable>> listeners = new HashMap<>();
    private NoticeTransport transport;
    private Thread deciding;
    private boolean closed;

    /**
     * @param threadName the name of the subscription threads (a node's address is appended to sharded ones)
     */
    public NoticeBus(Topology topology, String threadName) {
        this(topology, threadName, null);
    }

    /**
     * A bus whose plain subscription also holds {@code anchor}, a channel nobody publishes to, so its
     * connection stays open from the first listener until {@link #close()} rather than ending whenever the
     * last listener leaves (for an owner whose listeners come and go often, as lock waiters do). Put it under
     * the owner's key prefix, so an ACL user limited to {@code &prefix*} channels may subscribe to it.
     */
    public NoticeBus(Topology topology, String threadName, byte[] anchor) {
        this.topology = Require.notNull("topology", topology);
        this.threadName = Require.notEmpty("threadName", threadName);
        this.anchor = anchor == null ? null : anchor.clone();
    }

    /** A listener's registration; closing it stops the calls. Idempotent. */
    public interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Calls {@code listener} for notices on {@code channel} until the returned subscription is closed. The
     * same listener may be registered more than once; each registration is closed on its own. On a closed
     * bus nothing is subscribed.
     */
    public Subscription watch(byte[] channel, Runnable listener) {
        ByteBuffer ch = ByteBuffer.wrap(channel.clone());
        Require.notNull("listener", listener);
        Runnable registration = listener::run; // a distinct identity per registration
        synchronized (this) {
            if (closed) {
                return () -> {};
            }
            List<Runnable> list = listeners.computeIfAbsent(ch, c -> new ArrayList<>());
            list.add(registration);
            NoticeTransport t = transport();
            if (list.size() == 1 && t != null) {
                t.add(ch);
            }
        }
        return () -> unwatch(ch, registration);
    }

    private synchronized void unwatch(ByteBuffer ch, Runnable registration) {
        List<Runnable> list = listeners.get(ch);
        if (list == null || !list.removeIf(r -> r == registration) || !list.isEmpty()) {
            return;
        }
        listeners.remove(ch);
        if (transport != null) {
            transport.remove(ch);
        }
    }

    /** The transport, chosen on first need; null while the cluster cannot say which. Under this monitor. */
    private NoticeTransport transport() {
        if (transport == null && deciding == null) {
            Optional<Boolean> sharded = topology.shardedPubSub();
            if (sharded.isPresent()) {
                transport = create(sharded.get());
            } else {
                deciding = new Thread(this::decideLater, threadName + "-decide");
                deciding.setDaemon(true);
                deciding.start();
            }
        }
        return transport;
    }

    private NoticeTransport create(boolean sharded) {
        NoticeTransport.Sink sink = this::wake;
        return sharded
                ? new ShardedNotices(topology, sink, threadName)
                : new PlainNotices(topology, sink, threadName, anchor);
    }

    /** Asks the cluster again (50 ms doubling to 1 s) until it answers, then subscribes what is watched. */
    private void decideLater() {
        long backoff = ShardedNotices.MIN_BACKOFF_NANOS;
        while (true) {
            LockSupport.parkNanos(backoff);
            backoff = Math.min(backoff * 2, ShardedNotices.MAX_BACKOFF_NANOS);
            synchronized (this) {
                if (closed || listeners.isEmpty()) {
                    deciding = null;
                    return;
                }
            }
            Optional<Boolean> sharded = topology.shardedPubSub();
            if (sharded.isPresent()) {
                List<ByteBuffer> watched;
                synchronized (this) {
                    deciding = null;
                    if (closed) {
                        return;
                    }
                    transport = create(sharded.get());
                    listeners.keySet().forEach(transport::add);
                    watched = List.copyOf(listeners.keySet());
                }
                wake(watched); // notices may have been missed meanwhile
                return;
            }
        }
    }

    private void wake(Collection<ByteBuffer> channels) {
        List<Runnable> due = new ArrayList<>();
        synchronized (this) {
            for (ByteBuffer ch : channels) {
                List<Runnable> list = listeners.get(ch);
                if (list != null) {
                    due.addAll(list);
                }
            }
        }
        for (Runnable r : due) {
            r.run();
        }
    }

    /** Ends every subscription; later watches subscribe nothing. Idempotent. */
    @Override
    public void close() {
        NoticeTransport t;
        Thread d;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            listeners.clear();
            t = transport;
            d = deciding;
        }
        if (d != null) {
            LockSupport.unpark(d);
        }
        if (t != null) {
            t.close();
        }
    }

    /** For tests: the transport chosen so far, if any. */
    synchronized Optional<NoticeTransport> transportForTests() {
        return Optional.ofNullable(transport);
    }

    @Override
    public String toString() {
        return "NoticeBus[" + threadName + ", " + topology + (closed ? ", closed" : "") + "]";
    }
}
