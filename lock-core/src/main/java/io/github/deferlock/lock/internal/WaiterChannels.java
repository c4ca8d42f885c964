package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.redis.internal.NoticeBus;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The subscriptions of one engine to its waiter channels ({@code p{e}:released:<waiter id>}, one per key it
 * waits for). A subscription stays for {@link #LINGER_NANOS} after the last wait on its key ended, so a process
 * that contends for a key again and again stays subscribed and hears at once that the key is reserved for
 * it, even when its turn comes right after it queued (a fresh {@code SUBSCRIBE} would still be on its way and
 * the notice lost, leaving the waiter to the bus's after-subscription wake-up). A notice signals whichever
 * {@link KeyState} the key has at that moment. Idle subscriptions are closed from the {@link Watchdog}'s
 * thread. Threadsafe.
 */
final class WaiterChannels implements AutoCloseable {
    /** How long a waiter channel stays subscribed after the last wait on its key ended. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final NoticeBus notices;
    private final Function<String, KeyState> states;
    private final Watchdog scheduler;
    private final LockClock clock;

    // guarded by this
    private final Map<String, Entry> entries = new HashMap<>();
    private boolean closed;

    private static final class Entry {
        NoticeBus.Subscription subscription;
        int users;
        long idleSince;
    }

    /** One wait's use of a waiter channel; closing it ends the use. Idempotent. */
    interface Use extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * @param states the current state of a lock name, or null (signalled on a notice)
     * @param scheduler where idle subscriptions are closed later
     */
    WaiterChannels(NoticeBus notices, Function<String, KeyState> states, Watchdog scheduler, LockClock clock) {
        this.notices = notices;
        this.states = states;
        this.scheduler = scheduler;
        this.clock = clock;
    }

    /** Subscribes to {@code channel}, the waiter channel of {@code st}, or keeps the lingering subscription. */
    synchronized Use watch(KeyState st, byte[] channel) {
        if (closed) {
            return () -> {};
        }
        String name = st.name;
        Entry e = entries.get(name);
        if (e == null) {
            e = new Entry();
            grants.put(name, new Grants()); // before the subscription: its first notice finds it
            e.subscription = notices.watchMessages(channel, message -> signal(name, message));
            entries.put(name, e);
        }
        e.users++;
        Entry used = e;
        boolean[] done = {false};
        return () -> {
            synchronized (this) {
                if (!done[0]) {
                    done[0] = true;
                    unuse(name, used);
                }
            }
        };
    }

    private void signal(String name, byte[] message) {
        long grant = grantOf(message);
        if (grant > 0) {
            offerGrant(name, grant);
        }
        KeyState st = states.apply(name);
        if (st != null) {
            st.signal();
        }
    }

    /**
     * What one subscription heard of grants to this engine's waiter (release.lua), kept as long as the
     * subscription: a notice can only arrive while it lasts. Its own monitor, never this one's, so the
     * subscriber thread does not wait for a {@link #watch} in progress.
     */
    private static final class Grants {
        /** The block end of a grant a notice announced that the contender has not taken; 0 when none. */
        private long offered;
        /** The highest block end this engine got for the key (grants taken or passed on): a notice at or below it is stale. */
        private long known;
    }

    private final Map<String, Grants> grants = new ConcurrentHashMap<>();

    private void offerGrant(String name, long fence) {
        Grants g = grants.get(name);
        if (g != null) {
            synchronized (g) {
                if (fence > g.known && fence > g.offered) {
                    g.offered = fence;
                }
            }
        }
    }

    /**
     * The grant to this engine's waiter that a notice on the key's channel announced since the last call and
     * that is above every block this engine got for the key, or 0; clears the offer.
     */
    long takeGrant(KeyState st) {
        Grants g = grants.get(st.name);
        if (g == null) {
            return 0;
        }
        synchronized (g) {
            long fence = g.offered;
            g.offered = 0;
            if (fence <= g.known) {
                return 0;
            }
            g.known = fence;
            return fence;
        }
    }

    /** This engine got (or passed on) the block ending at {@code fence} for the key: notices at or below it are stale. */
    void knownFence(KeyState st, long fence) {
        Grants g = grants.get(st.name);
        if (g != null) {
            synchronized (g) {
                g.known = Math.max(g.known, fence);
                if (g.offered <= g.known) {
                    g.offered = 0;
                }
            }
        }
    }

    /** Forgets an offered grant: a new wait begins, and a notice before its first request was for an earlier one. */
    void dropOfferedGrant(KeyState st) {
        Grants g = grants.get(st.name);
        if (g != null) {
            synchronized (g) {
                g.offered = 0;
            }
        }
    }

    /**
     * The last fencing token of the block a release granted to this engine's waiter, from a notice {@code
     * =<token>} (release.lua); 0 for any other notice ({@code ~}: reserved, take it with a request; {@code +}:
     * a permit may be free; null: look again).
     */
    static long grantOf(byte[] message) {
        if (message == null || message.length < 2 || message.length > 19 || message[0] != '=') {
            return 0;
        }
        long fence = 0;
        for (int i = 1; i < message.length; i++) {
            byte b = message[i];
            if (b < '0' || b > '9') {
                return 0;
            }
            fence = fence * 10 + (b - '0');
        }
        return fence;
    }

    /** Under this monitor. */
    private void unuse(String name, Entry e) {
        if (--e.users > 0 || closed) {
            return;
        }
        e.idleSince = clock.nanoTime();
        scheduler.runLater(() -> sweep(name, e), LINGER_NANOS);
    }

    private synchronized void sweep(String name, Entry e) {
        if (entries.get(name) != e || e.users > 0) {
            return; // in use again; its next idle period schedules its own sweep
        }
        long idle = clock.nanoTime() - e.idleSince;
        if (idle < LINGER_NANOS) {
            scheduler.runLater(() -> sweep(name, e), LINGER_NANOS - idle);
            return;
        }
        entries.remove(name);
        e.subscription.close();
        grants.remove(name);
    }

    /** How many waiter channels are subscribed now (for tests). */
    synchronized int subscribed() {
        return entries.size();
    }

    /** Ends every subscription. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        entries.values().forEach(e -> e.subscription.close());
        entries.clear();
        grants.clear();
    }
}
