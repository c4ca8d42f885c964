package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.redis.internal.NoticeBus;
import java.util.HashMap;
import java.util.Map;
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
            e.subscription = notices.watch(channel, () -> signal(name));
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

    private void signal(String name) {
        KeyState st = states.apply(name);
        if (st != null) {
            st.signal();
        }
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
    }
}
