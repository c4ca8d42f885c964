package io.github.deferlock.streams;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.resps.StreamPendingSummary;

/**
 * What every test of this module builds: a pooled client, locks under the prefix {@code t:}, a deferral queue
 * and an "orders" handler that counts its runs per message id in the hash {@code handled} (HINCRBY), so
 * duplicates and losses are visible in Redis whichever process ran the handler.
 */
final class Fixture implements AutoCloseable {
    static final String HANDLED = "handled";

    final RedisClient redis;
    final RedisLocks locks;
    final Deferrals deferrals;
    final ConflictAwareHandler<Order> handler;
    final Recorder recorder = new Recorder();

    Fixture(HostAndPort hp, Duration workPerMessage) {
        this(hp, workPerMessage, null);
    }

    Fixture(HostAndPort hp, Duration workPerMessage, Duration lockLease) {
        this.redis = pooled(hp);
        RedisLocks.Builder lb = RedisLocks.builder(redis).keyPrefix("t:");
        if (lockLease != null) {
            lb.defaultLease(lockLease);
        }
        this.locks = lb.build();
        this.deferrals = Deferrals.builder(redis, "deferred")
                .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500), 2.0))
                .maxDeferrals(10_000)
                .build();
        long sleepMillis = workPerMessage.toMillis();
        this.handler = ConflictAwareHandler.builder("orders", Order.class, locks)
                .key(o -> "order:" + o.key())
                .messageId(Order::id)
                .handler(o -> {
                    redis.hincrBy(HANDLED, o.id(), 1);
                    if (sleepMillis > 0) {
                        Thread.sleep(sleepMillis);
                    }
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    /** Starts a deferral worker: messages of keys the consumer threads themselves hold get deferred too. */
    Fixture withDeferralWorker() {
        deferrals.startWorker(2);
        return this;
    }

    static RedisClient pooled(HostAndPort hp) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        return RedisClient.builder().hostAndPort(hp).poolConfig(pool).build();
    }

    StreamConsumer.Builder<Order> consumer(String stream) {
        return StreamConsumer.builder(redis, stream, "g", Order.class, handler).listener(recorder);
    }

    long handledIds() {
        return redis.hlen(HANDLED);
    }

    /** Ids handled more than once. */
    List<String> duplicates() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : redis.hgetAll(HANDLED).entrySet()) {
            if (!e.getValue().equals("1")) {
                out.add(e.getKey() + "=" + e.getValue());
            }
        }
        return out;
    }

    long pending(String stream) {
        StreamPendingSummary s = redis.xpending(stream, "g");
        return s.getTotal();
    }

    long deferralsLeft() {
        return deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT);
    }

    @Override
    public void close() {
        deferrals.close();
        locks.close();
        redis.close();
    }

    /** Records handle times and outcomes, and failures. */
    static final class Recorder implements StreamListener {
        final ConcurrentLinkedQueue<Long> handleNanos = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Long> deferNanos = new ConcurrentLinkedQueue<>();
        final AtomicInteger processed = new AtomicInteger();
        final AtomicInteger deferred = new AtomicInteger();
        final AtomicInteger duplicates = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger redisWaits = new AtomicInteger();
        final AtomicInteger deadLettered = new AtomicInteger();
        final AtomicInteger reclaimed = new AtomicInteger();

        @Override
        public void onHandled(String entryId, Outcome outcome, Duration took) {
            handleNanos.add(took.toNanos());
            switch (outcome) {
                case PROCESSED -> processed.incrementAndGet();
                case DEFERRED -> {
                    deferred.incrementAndGet();
                    deferNanos.add(took.toNanos());
                }
                case DUPLICATE -> duplicates.incrementAndGet();
            }
        }

        @Override
        public void onFailed(String entryId, int attempt, Throwable error) {
            failed.incrementAndGet();
        }

        @Override
        public void onRedisUnavailable(String entryId, Throwable error) {
            redisWaits.incrementAndGet();
        }

        @Override
        public void onDeadLettered(String entryId, String reason) {
            deadLettered.incrementAndGet();
        }

        @Override
        public void onReclaimed(int count) {
            reclaimed.addAndGet(count);
        }

        static Duration p(ConcurrentLinkedQueue<Long> nanos, double q) {
            List<Long> sorted = new ArrayList<>(nanos);
            if (sorted.isEmpty()) {
                return Duration.ZERO;
            }
            Collections.sort(sorted);
            return Duration.ofNanos(sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1)));
        }
    }
}
