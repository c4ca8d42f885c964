package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import io.github.deferlock.redis.internal.Retry;
import io.github.deferlock.redis.internal.Topology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Renews every watchdog hold of one engine from one daemon thread, every third of the default lease. All due
 * holds go out in one renew script per batch (one batch per slot on a cluster, at most {@link #BATCH} keys),
 * so a tick costs one round trip on a standalone server. On a cluster each master's batches are renewed by a
 * task of their own on a pool of at most {@link #IO_THREADS} threads per engine, so a slow or paused master
 * delays only the renewals of its own keys. A hold whose renewal is refused is lost at once; a hold whose renewals keep
 * failing is lost when its lease runs out by the local clock. A hold handed off to the next local thread is
 * confirmed at once ({@link #confirmSoon}), not at the next tick. Threadsafe.
 */
final class Watchdog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    static final int BATCH = 256;

    /** Threads that renew the masters' batches concurrently on a cluster; idle ones end after 30 s. */
    static final int IO_THREADS = 8;

    private final LockEngine engine;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final Set<Hold> urgent = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean confirmQueued = new AtomicBoolean();
    private final long periodNanos;
    private final Topology topology;
    private volatile ScheduledExecutorService executor;
    private ThreadPoolExecutor io; // guarded by this

    /** The master ("host:port") last seen serving each slot that had holds; only for grouping renewals. */
    private final Map<Integer, String> masterOfSlot = new ConcurrentHashMap<>();

    /** Per master (or unknown slot): whether its renewal task still runs. */
    private final Map<String, AtomicBoolean> inFlight = new ConcurrentHashMap<>();

    private boolean closed; // guarded by this

    Watchdog(LockEngine engine) {
        this.engine = engine;
        this.periodNanos = Math.max(
                LockConfig.MIN_TICK.toNanos(), engine.config().defaultLease().toNanos() / 3);
        this.topology = engine.topology();
    }

    void add(Hold hold) {
        holds.add(hold);
        if (executor == null) {
            start();
        }
    }

    void remove(Hold hold) {
        holds.remove(hold);
        urgent.remove(hold);
    }

    /**
     * Renews {@code hold} soon on the watchdog thread rather than at the next tick: after a local hand-off,
     * so a key that vanished since the last confirmation (eviction, failover, {@code DEL}) is reported lost
     * within one round trip. Requests that arrive before the thread gets to them share one script call.
     */
    void confirmSoon(Hold hold) {
        urgent.add(hold);
        ScheduledExecutorService ex = executor;
        if (ex != null && confirmQueued.compareAndSet(false, true)) {
            try {
                ex.execute(this::confirm);
            } catch (RejectedExecutionException closing) {
                confirmQueued.set(false);
            }
        }
    }

    /**
     * Runs {@code task} on the watchdog thread after {@code delayNanos}: the engine's one scheduler, also for
     * work that is not renewal ({@link WaiterChannels}). Nothing runs once the watchdog is closed.
     */
    void runLater(Runnable task, long delayNanos) {
        if (executor == null) {
            start();
        }
        ScheduledExecutorService ex = executor;
        if (ex == null) {
            return; // closed
        }
        try {
            ex.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // closing: the subscriptions end with the engine
        }
    }

    private synchronized void start() {
        if (executor != null || closed) {
            return;
        }
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "deferlock-watchdog");
            t.setDaemon(true);
            return t;
        });
        ex.scheduleAtFixedRate(this::tick, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        executor = ex;
    }

    private void confirm() {
        confirmQueued.set(false);
        try {
            List<Hold> due = new ArrayList<>();
            for (Hold hold : urgent) {
                urgent.remove(hold);
                if (hold.isActive()) {
                    due.add(hold);
                }
            }
            renewAll(batches(due));
        } catch (RuntimeException | Error e) { // a listener's Error must not end the watchdog thread
            LOG.warn("watchdog confirmation failed", e);
        }
    }

    void tick() {
        try {
            if (holds.isEmpty()) {
                return;
            }
            long now = engine.clock().nanoTime();
            List<Hold> due = new ArrayList<>();
            for (Hold hold : holds) {
                if (!hold.isActive()) {
                    holds.remove(hold);
                } else if (now - hold.validUntil() >= 0) {
                    engine.lost(
                            hold,
                            new LockException(
                                    "the lease of lock '" + hold.state.keyString
                                            + "' ran out before it could be renewed",
                                    hold.lastRenewError()));
                } else {
                    due.add(hold);
                }
            }
            renewAll(batches(due));
        } catch (RuntimeException | Error e) { // a listener's Error must not end the renewals of every lock
            LOG.warn("watchdog tick failed", e);
        }
    }

    private List<List<Hold>> batches(List<Hold> due) {
        Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
        for (Hold hold : due) {
            int slot = topology.slotOf(hold.state.key);
            bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(hold);
        }
        List<List<Hold>> out = new ArrayList<>();
        for (List<Hold> group : bySlot.values()) {
            for (int i = 0; i < group.size(); i += BATCH) {
                out.add(group.subList(i, Math.min(group.size(), i + BATCH)));
            }
        }
        return out;
    }

    private void renewAll(List<List<Hold>> batches) {
        if (topology.routesBySlot()) {
            renewConcurrently(batches);
        } else {
            for (List<Hold> batch : batches) {
                renew(batch);
            }
        }
    }

    private List<byte[]> keys(List<Hold> batch) {
        List<byte[]> keys = new ArrayList<>(batch.size());
        for (Hold hold : batch) {
            keys.add(hold.state.key);
        }
        return keys;
    }

    private List<byte[]> args(List<Hold> batch) {
        List<byte[]> args = new ArrayList<>(batch.size() + 1);
        args.add(engine.defaultLeaseMillis());
        for (Hold hold : batch) {
            args.add(hold.token);
        }
        return args;
    }

    private void renew(List<Hold> batch) {
        List<Hold> permits = new ArrayList<>();
        List<Hold> locks = new ArrayList<>(batch.size());
        for (Hold hold : batch) {
            (hold instanceof PermitHold ? permits : locks).add(hold);
        }
        if (!permits.isEmpty()) {
            renewPermits(permits);
        }
        if (!locks.isEmpty()) {
            renewLocks(locks);
        }
    }

    /** Permits go to permit-renew.lua, in the same batches (one slot, at most {@link #BATCH}). */
    private void renewPermits(List<Hold> batch) {
        long sentAt = engine.clock().nanoTime();
        List<?> reply;
        try {
            reply = Retry.QUICK_CONNECTION_ERRORS.call(
                    () -> PermitScripts.renew(engine.redis(), batch, engine.defaultLeaseMillis()));
        } catch (JedisException e) {
            failed(batch, e);
            return;
        }
        apply(batch, reply, sentAt);
    }

    private void renewLocks(List<Hold> batch) {
        List<byte[]> keys = keys(batch);
        List<byte[]> args = args(batch);
        long sentAt = engine.clock().nanoTime();
        List<?> reply;
        try {
            // compare-and-PEXPIRE is safe to repeat after a dead pooled connection
            reply = Retry.QUICK_CONNECTION_ERRORS.call(() -> (List<?>) LockLua.RENEW.run(engine.redis(), keys, args));
        } catch (JedisException e) {
            failed(batch, e);
            return;
        }
        apply(batch, reply, sentAt);
    }

    /**
     * Renews the batches of a cluster concurrently, one task per master on the bounded {@link #io()} pool:
     * the batches of one master go out one after another in its task, so a slow or paused master holds up
     * only the renewals of its own keys. A master whose previous task still runs gets no new one (its holds
     * wait; they are lost if their lease runs out). Which master serves a slot is learned as the tasks run
     * (unknown slots form groups of their own); it only decides the grouping, never where a command goes.
     */
    private void renewConcurrently(List<List<Hold>> batches) {
        ExecutorService pool = io();
        if (pool == null) {
            return; // closing
        }
        Map<String, List<List<Hold>>> byMaster = new LinkedHashMap<>();
        for (List<Hold> batch : batches) {
            int slot = JedisClusterCRC16.getSlot(batch.get(0).state.key);
            String master = masterOfSlot.getOrDefault(slot, "slot " + slot);
            byMaster.computeIfAbsent(master, m -> new ArrayList<>()).add(batch);
        }
        for (Map.Entry<String, List<List<Hold>>> group : byMaster.entrySet()) {
            AtomicBoolean running = inFlight.computeIfAbsent(group.getKey(), m -> new AtomicBoolean());
            if (!running.compareAndSet(false, true)) {
                LOG.debug("renewals on {} are still in flight; its holds wait for them", group.getKey());
                continue;
            }
            try {
                pool.execute(() -> {
                    try {
                        for (List<Hold> batch : group.getValue()) {
                            renewOnItsMaster(batch);
                        }
                    } catch (RuntimeException | Error e) { // a listener's Error must not end the pool thread
                        LOG.warn("watchdog renewal failed", e);
                    } finally {
                        running.set(false);
                    }
                });
            } catch (RejectedExecutionException closing) {
                running.set(false);
            }
        }
    }

    /** Looks up (and remembers) the master of the batch's slot, then renews the batch as usual. */
    private void renewOnItsMaster(List<Hold> batch) {
        int slot = JedisClusterCRC16.getSlot(batch.get(0).state.key);
        try (Connection c = topology.connectionForSlot(slot)) { // may wait on a dead master, in this task only
            masterOfSlot.put(slot, c.getHostAndPort().toString());
        } catch (JedisException e) {
            failed(batch, e); // no connection to the master: a script call would only wait longer
            return;
        }
        renew(batch);
    }

    private void failed(List<Hold> batch, JedisException e) {
        LOG.debug("renewal of {} lock(s) failed; retrying on the next tick", batch.size(), e);
        batch.forEach(h -> h.renewFailed(e));
    }

    private void apply(List<Hold> batch, List<?> reply, long sentAt) {
        for (int i = 0; i < batch.size(); i++) {
            Hold hold = batch.get(i);
            if (Long.valueOf(1).equals(reply.get(i))) {
                hold.renewedAt(sentAt);
            } else {
                engine.lost(
                        hold,
                        new LockException("the renewal of lock '" + hold.state.keyString
                                + "' was refused: the key is gone or held by another owner"));
            }
        }
    }

    private synchronized ExecutorService io() {
        if (closed) {
            return null;
        }
        if (io == null) {
            io = new ThreadPoolExecutor(
                    IO_THREADS, IO_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, "deferlock-watchdog-io");
                        t.setDaemon(true);
                        return t;
                    });
            io.allowCoreThreadTimeOut(true);
        }
        return io;
    }

    @Override
    public void close() {
        ScheduledExecutorService ex;
        ExecutorService pool;
        synchronized (this) {
            closed = true;
            ex = executor;
            pool = io;
        }
        if (ex != null) {
            ex.shutdownNow();
        }
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
