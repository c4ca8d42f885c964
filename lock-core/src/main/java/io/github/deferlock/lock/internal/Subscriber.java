package io.github.deferlock.lock.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * One pub/sub connection per engine, on a daemon thread started when the first waiter needs it, subscribed
 * to the release channel of every key a local contender is waiting for in Redis. A notice (or a confirmed
 * subscription, or a reconnect) signals the key's waiter to try again. A dropped connection is reopened with
 * backoff; waiters keep polling meanwhile. Threadsafe.
 */
final class Subscriber implements ReleaseNotices {
    private static final Logger LOG = LoggerFactory.getLogger(Subscriber.class);

    private final UnifiedJedis redis;
    /** Under the key prefix, so an ACL user limited to {@code &prefix*} channels may subscribe to it. */
    private final byte[] control;

    // all guarded by this
    private final Map<ByteBuffer, List<KeyState>> watched = new HashMap<>();
    private Channels current;
    private Thread thread;
    private boolean closed;

    Subscriber(UnifiedJedis redis, String keyPrefix) {
        this.redis = redis;
        this.control = (keyPrefix + "subscriber:" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void watch(KeyState st) {
        if (closed) {
            return;
        }
        List<KeyState> list = watched.computeIfAbsent(ByteBuffer.wrap(st.channel), c -> new ArrayList<>());
        list.add(st);
        if (list.size() == 1 && current != null) {
            send(() -> current.subscribe(st.channel));
        }
        if (thread == null) {
            thread = new Thread(this::run, "deferlock-subscriber");
            thread.setDaemon(true);
            thread.start();
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
        if (current != null) {
            send(() -> current.unsubscribe(st.channel));
        }
    }

    private static void send(Runnable command) {
        try {
            command.run();
        } catch (RuntimeException e) {
            LOG.debug("pub/sub command failed; the connection is being replaced", e);
        }
    }

    private void run() {
        long backoff = TimeUnit.MILLISECONDS.toNanos(50);
        while (true) {
            Channels channels = new Channels();
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            try {
                redis.subscribe(channels, control);
                backoff = TimeUnit.MILLISECONDS.toNanos(50);
            } catch (RuntimeException e) {
                LOG.debug("release-notice subscription dropped", e);
            }
            List<KeyState> waiters = new ArrayList<>();
            synchronized (this) {
                current = null;
                if (closed) {
                    return;
                }
                watched.values().forEach(waiters::addAll);
            }
            waiters.forEach(KeyState::signal); // notices may have been missed: look again
            LockSupport.parkNanos(backoff);
            backoff = Math.min(backoff * 2, TimeUnit.SECONDS.toNanos(2));
        }
    }

    private void connected(Channels channels) {
        List<KeyState> waiters = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                send(channels::unsubscribe);
                return;
            }
            current = channels;
            if (!watched.isEmpty()) {
                byte[][] all = watched.keySet().stream().map(ByteBuffer::array).toArray(byte[][]::new);
                send(() -> channels.subscribe(all));
            }
            watched.values().forEach(waiters::addAll);
        }
        waiters.forEach(KeyState::signal);
    }

    private void deliver(byte[] channel) {
        List<KeyState> waiters;
        synchronized (this) {
            List<KeyState> list = watched.get(ByteBuffer.wrap(channel));
            waiters = list == null ? List.of() : List.copyOf(list);
        }
        waiters.forEach(KeyState::signal);
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (current != null) {
                send(current::unsubscribe);
            }
            t = thread;
        }
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private final class Channels extends BinaryJedisPubSub {
        @Override
        public void onSubscribe(byte[] channel, int subscribedChannels) {
            if (ByteBuffer.wrap(channel).equals(ByteBuffer.wrap(control))) {
                connected(this);
            } else {
                deliver(channel); // subscribed now: a release just before it would be missed, so look again
            }
        }

        @Override
        public void onMessage(byte[] channel, byte[] message) {
            deliver(channel);
        }
    }
}
