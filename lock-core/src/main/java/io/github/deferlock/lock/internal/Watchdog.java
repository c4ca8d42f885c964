package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Renews every watchdog hold of one engine from one daemon thread, every third of the default lease. All due
 * holds go out in one renew script per batch (one batch per slot on a cluster, at most {@link #BATCH} keys),
 * so a tick costs one round trip on a standalone server. A hold whose renewal is refused is lost at once; a
 * hold whose renewals keep failing is lost when its lease runs out by the local clock. Threadsafe.
 */
final class Watchdog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    static final int BATCH = 256;

    private final LockEngine engine;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final long periodNanos;
    private final boolean cluster;
    private volatile ScheduledExecutorService executor;
    private boolean closed; // guarded by this

    Watchdog(LockEngine engine) {
        this.engine = engine;
        this.periodNanos = Math.max(
                LockConfig.MIN_TICK.toNanos(), engine.config().defaultLease().toNanos() / 3);
        this.cluster = isCluster(engine.redis());
    }

    private static boolean isCluster(UnifiedJedis redis) {
        for (Class<?> c = redis.getClass(); c != null; c = c.getSuperclass()) {
            String n = c.getName();
            if (n.equals("redis.clients.jedis.RedisClusterClient") || n.equals("redis.clients.jedis.JedisCluster")) {
                return true;
            }
        }
        return false;
    }

    void add(Hold hold) {
        holds.add(hold);
        if (executor == null) {
            start();
        }
    }

    void remove(Hold hold) {
        holds.remove(hold);
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
            for (List<Hold> batch : batches(due)) {
                renew(batch);
            }
        } catch (RuntimeException e) {
            LOG.warn("watchdog tick failed", e);
        }
    }

    private List<List<Hold>> batches(List<Hold> due) {
        Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
        for (Hold hold : due) {
            int slot = cluster ? JedisClusterCRC16.getSlot(hold.state.key) : 0;
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

    private void renew(List<Hold> batch) {
        List<byte[]> keys = new ArrayList<>(batch.size());
        List<byte[]> args = new ArrayList<>(batch.size() + 1);
        args.add(engine.defaultLeaseMillis());
        for (Hold hold : batch) {
            keys.add(hold.state.key);
            args.add(hold.token);
        }
        long sentAt = engine.clock().nanoTime();
        List<?> reply;
        try {
            reply = (List<?>) Script.RENEW.run(engine.redis(), keys, args);
        } catch (JedisException e) {
            LOG.debug("renewal of {} lock(s) failed; retrying on the next tick", batch.size(), e);
            batch.forEach(h -> h.renewFailed(e));
            return;
        }
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

    @Override
    public void close() {
        ScheduledExecutorService ex;
        synchronized (this) {
            closed = true;
            ex = executor;
        }
        if (ex != null) {
            ex.shutdownNow();
        }
    }
}
