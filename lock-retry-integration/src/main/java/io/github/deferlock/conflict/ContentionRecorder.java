package io.github.deferlock.conflict;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.redis.internal.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Keeps the conflicts view's counters (docs/ops.md, "Conflict stats"): each conflict is counted in memory at
 * once (no I/O on the caller's thread), and a shared daemon thread adds the counts to per-minute buckets in
 * Redis, one zset per strategy and minute, {@code <prefix>conflicts:<STRATEGY>:<epoch minute>} (lock name →
 * conflicts), kept {@value #BUCKET_LIFE_SECONDS} s and trimmed to the {@value #CAP} most contended names, with
 * one {@code record_conflicts.lua} call per bucket and up to {@value #BATCH} names. Conflicts that arrive
 * while a flush runs are sent by the next one, so a burst of conflicts costs a few calls, not one each.
 *
 * <p>It never fails nor slows conflict handling: a Redis error is logged at debug and those counts are
 * dropped; past {@value #MAX_PENDING} distinct names waiting to be sent, further names are dropped until the
 * next flush. Only locks of a {@code RedisLocks} ({@link RedisLock}) are counted. Threadsafe.
 */
final class ContentionRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(ContentionRecorder.class);

    /** Members kept per bucket. */
    static final int CAP = 1000;
    /** A bucket's life. */
    static final int BUCKET_LIFE_SECONDS = 900;
    /** Names per script call. */
    static final int BATCH = 100;
    /** Distinct (strategy, key prefix, name) counts waiting to be sent, at most. */
    static final int MAX_PENDING = 10_000;

    private static final Script RECORD =
            Script.load(r -> ContentionRecorder.class.getResourceAsStream(r), "record_conflicts.lua");

    /** One daemon thread for every recorder of the JVM; a recorder has at most one flush queued. */
    private static final ThreadPoolExecutor FLUSHER = flusher();

    /** Records nothing. */
    static final ContentionRecorder OFF = new ContentionRecorder(false, System::currentTimeMillis);

    /** A recorder on the system clock when {@code enabled}, else {@link #OFF}. */
    static ContentionRecorder of(boolean enabled) {
        return enabled ? new ContentionRecorder(true, System::currentTimeMillis) : OFF;
    }

    private record Pending(UnifiedJedis redis, String prefix, OnConflict strategy, String name) {}

    private final boolean enabled;
    private final LongSupplier clockMillis;
    private final Map<Pending, Long> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    ContentionRecorder(boolean enabled, LongSupplier clockMillis) {
        this.enabled = enabled;
        this.clockMillis = clockMillis;
    }

    /** Counts one conflict on {@code lock}; returns at once. */
    void record(DistributedLock lock, String name, OnConflict strategy) {
        if (!enabled || !(lock instanceof RedisLock redisLock)) {
            return;
        }
        try {
            Pending p = new Pending(redisLock.redis(), redisLock.keyPrefix(), strategy, name);
            if (pending.size() >= MAX_PENDING && !pending.containsKey(p)) {
                return;
            }
            // atomic against the flush's remove: a count lands either in what it takes or in what it leaves
            pending.merge(p, 1L, Long::sum);
            if (scheduled.compareAndSet(false, true)) {
                FLUSHER.execute(this::flushQuietly);
            }
        } catch (RuntimeException e) { // RejectedExecutionException: the next conflict schedules again
            scheduled.set(false);
            LOG.debug("conflict counts not scheduled for the conflicts view", e);
        }
    }

    private void flushQuietly() {
        scheduled.set(false);
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.debug("conflict counts not sent to Redis for the conflicts view; dropped", e);
        }
    }

    /** Sends what is pending: one script call per bucket and {@value #BATCH} names. */
    void flush() {
        long minute = Math.floorDiv(clockMillis.getAsLong(), 60_000L);
        Map<UnifiedJedis, Map<String, Map<OnConflict, List<byte[]>>>> byBucket = new HashMap<>();
        for (Pending p : List.copyOf(pending.keySet())) {
            Long taken = pending.remove(p);
            long n = taken == null ? 0 : taken;
            if (n == 0) {
                continue;
            }
            List<byte[]> args = byBucket.computeIfAbsent(p.redis(), k -> new HashMap<>())
                    .computeIfAbsent(p.prefix(), k -> new HashMap<>())
                    .computeIfAbsent(p.strategy(), k -> new ArrayList<>());
            args.add(bytes(p.name()));
            args.add(bytes(Long.toString(n)));
        }
        byBucket.forEach((redis, byPrefix) -> byPrefix.forEach((prefix, byStrategy) ->
                byStrategy.forEach((strategy, pairs) -> send(redis, bucketKey(prefix, strategy, minute), pairs))));
    }

    private static void send(UnifiedJedis redis, String bucket, List<byte[]> pairs) {
        for (int from = 0; from < pairs.size(); from += 2 * BATCH) {
            List<byte[]> args = new ArrayList<>(2 + 2 * BATCH);
            args.add(bytes(Integer.toString(BUCKET_LIFE_SECONDS)));
            args.add(bytes(Integer.toString(CAP)));
            args.addAll(pairs.subList(from, Math.min(pairs.size(), from + 2 * BATCH)));
            try {
                RECORD.run(redis, List.of(bytes(bucket)), args);
            } catch (RuntimeException e) {
                LOG.debug("conflict counts for {} not sent; dropped", bucket, e);
            }
        }
    }

    /** The bucket of {@code strategy}'s conflicts under {@code prefix} in epoch minute {@code minute}. */
    static String bucketKey(String prefix, OnConflict strategy, long minute) {
        return prefix + "conflicts:" + strategy.name() + ":" + minute;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ThreadPoolExecutor flusher() {
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024), r -> {
                    Thread t = new Thread(r, "deferlock-conflict-stats");
                    t.setDaemon(true);
                    return t;
                });
        return pool;
    }
}
