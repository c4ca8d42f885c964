package io.github.deferlock.conflict;

import io.github.deferlock.lock.internal.Parking.OrphanState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety net for parked work that no job will run (docs/lock-keys.md, "Parked work"): a drain token whose
 * enqueue was lost in a failover, a dead-lettered token, or a token that ended before a frozen parker's park.lua
 * made it the drainer. It remembers the keys this process parked or drained, at most {@code capacity} of them
 * (the least recently remembered key is forgotten first), and every {@code periodMillis} looks at each: nothing
 * parked forgets the key, a live drainer keeps it, and parked work with no drainer record is handed to the
 * {@link Recovery}, which gives it a new drain token. One look (one round trip) per remembered key per period;
 * nothing on the message path but a map update.
 *
 * <p>Owns the remembered keys (guarded by their map's monitor) and one daemon thread, started by the first
 * {@link #remember} and stopped by {@link #close()}. A Redis failure ends the sweep early; the keys stay and the
 * next period looks again. Threadsafe.
 *
 * @param <T> what the recovery needs to look at and adopt one key
 */
final class OrphanSweep<T> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OrphanSweep.class);

    /** What the sweep does with a remembered key. Redis failures escape as runtime exceptions. */
    interface Recovery<T> {
        /** {@link OrphanState#NOTHING_PARKED}, {@link OrphanState#DRAINED} or {@link OrphanState#ORPHANED}. */
        OrphanState look(T key);

        /** Gives an orphaned key a new drain token; returns whether it became the key's drainer. */
        boolean adopt(T key);
    }

    /** A remembered key; {@code stamp} changes when it is remembered again, so a sweep does not forget it then. */
    private static final class Entry<T> {
        final T target;
        long stamp;

        Entry(T target) {
            this.target = target;
        }
    }

    private final String name;
    private final int capacity;
    private final long periodMillis;
    private final Recovery<T> recovery;
    private final LinkedHashMap<String, Entry<T>> keys;
    private ScheduledExecutorService timer; // guarded by keys
    private boolean closed; // guarded by keys

    /**
     * @param name what the sweep's thread and logs are named after (the deferral queue)
     * @param capacity the most keys remembered
     * @param periodMillis the time between two sweeps, and before the first
     */
    OrphanSweep(String name, int capacity, long periodMillis, Recovery<T> recovery) {
        this.name = name;
        this.capacity = capacity;
        this.periodMillis = periodMillis;
        this.recovery = recovery;
        this.keys = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, OrphanSweep.Entry<T>> eldest) {
                return size() > OrphanSweep.this.capacity;
            }
        };
    }

    /**
     * Remembers the key whose parked work is identified by {@code id} (its FIFO's Redis key); starts the sweep's
     * thread on the first call. No Redis call.
     */
    void remember(String id, T target) {
        synchronized (keys) {
            if (closed) {
                return;
            }
            Entry<T> e = keys.get(id);
            if (e == null) {
                keys.put(id, new Entry<>(target));
            } else {
                e.stamp++;
            }
            if (timer == null) {
                timer = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "deferlock-orphan-sweep-" + name);
                    t.setDaemon(true);
                    return t;
                });
                timer.scheduleWithFixedDelay(this::sweepQuietly, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** How many keys are remembered. */
    int size() {
        synchronized (keys) {
            return keys.size();
        }
    }

    /** Whether {@code id} is remembered. */
    boolean remembers(String id) {
        synchronized (keys) {
            return keys.containsKey(id);
        }
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException | Error e) {
            log.warn("deferral queue '{}': the orphan sweep failed; it runs again in {} ms", name, periodMillis, e);
        }
    }

    /** One sweep over the remembered keys; returns how many were adopted. */
    int sweep() {
        List<Map.Entry<String, Entry<T>>> snapshot;
        List<Long> stamps = new ArrayList<>();
        synchronized (keys) {
            snapshot = new ArrayList<>(keys.size());
            for (Map.Entry<String, Entry<T>> e : keys.entrySet()) {
                snapshot.add(Map.entry(e.getKey(), e.getValue()));
                stamps.add(e.getValue().stamp);
            }
        }
        int adopted = 0;
        for (int i = 0; i < snapshot.size(); i++) {
            synchronized (keys) {
                if (closed) {
                    return adopted;
                }
            }
            String id = snapshot.get(i).getKey();
            Entry<T> entry = snapshot.get(i).getValue();
            try {
                OrphanState state = recovery.look(entry.target);
                if (state == OrphanState.NOTHING_PARKED) {
                    forget(id, entry, stamps.get(i));
                } else if (state == OrphanState.ORPHANED && recovery.adopt(entry.target)) {
                    adopted++;
                }
            } catch (RuntimeException e) {
                log.debug(
                        "deferral queue '{}': the orphan sweep stops at {} until the next one: {}",
                        name,
                        id,
                        e.toString());
                return adopted;
            }
        }
        return adopted;
    }

    /** Forgets {@code id} unless it was remembered again (or replaced) since the sweep read {@code stamp}. */
    private void forget(String id, Entry<T> entry, long stamp) {
        synchronized (keys) {
            if (keys.get(id) == entry && entry.stamp == stamp) {
                keys.remove(id);
            }
        }
    }

    /** Stops the sweep's thread (a sweep under way ends at its next key) and forgets every key. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (keys) {
            closed = true;
            keys.clear();
            t = timer;
            timer = null;
        }
        if (t != null) {
            t.shutdownNow();
        }
    }
}
