package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.delay.QueueRateLimit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ZRangeParams;

/**
 * One Java queue side: add, bulk add, consumers. Payloads are 100-character strings {@code seq:dueMicros:x…}
 * on every side; the due time in the payload is the client's clock, the same clock the handler reads.
 */
interface QueueSide extends AutoCloseable {

    int PAYLOAD_CHARS = 100;

    /** Adds one job due in {@code delayMillis}. */
    void add(String payload, long delayMillis) throws Exception;

    /** Adds jobs with their own delays (ms) in as few round trips as the side allows. */
    void addBulk(List<String> payloads, List<Long> delays) throws Exception;

    /** Starts {@code n} consumers calling {@code handler} with each payload; closing stops them. */
    AutoCloseable consume(int n, Consumer<String> handler) throws Exception;

    /** How many jobs are ready for consumers (Redisson: moved to the destination queue), for the drain. */
    default long ready() {
        return Long.MAX_VALUE;
    }

    @Override
    void close();

    static QueueSide open(String side, Redis redis, String name) {
        return switch (side) {
            case Sides.DEFERLOCK -> new Deferlock(redis, name);
            case Sides.RAW -> new Zset(redis, name, false);
            case Sides.SEED -> new Zset(redis, name, true);
            case Sides.REDISSON -> new Redisson(redis.redisson(), name, false);
            case Sides.REDISSON_TUNED -> new Redisson(redis.redissonTuned(), name, true);
            default -> throw new IllegalArgumentException("not a Java queue side: " + side);
        };
    }

    static String payload(long seq, long dueMicros) {
        return payload(seq, dueMicros, PAYLOAD_CHARS);
    }

    /** A payload of {@code chars} ASCII characters (bytes), {@code seq:dueMicros:x…}. */
    static String payload(long seq, long dueMicros, int chars) {
        StringBuilder sb = new StringBuilder(chars);
        sb.append(seq).append(':').append(dueMicros).append(':');
        sb.append("x".repeat(Math.max(0, chars - sb.length())));
        return sb.toString();
    }

    static long dueMicrosOf(String payload) {
        int a = payload.indexOf(':');
        return Long.parseLong(payload.substring(a + 1, payload.indexOf(':', a + 1)));
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    /** deferlock's {@link DelayQueue} and {@link DelayQueueWorker}, defaults except the concurrency. */
    final class Deferlock implements QueueSide {
        private final RedisClient client;
        private final DelayQueue<String> queue;
        /** Concurrency keys the added jobs carry in turn ({@code k0}, {@code k1}, ...), or 0 for none. */
        private final int keys;

        private long added;

        Deferlock(Redis redis, String name) {
            this(redis, name, null, 0, 0);
        }

        /**
         * A queue with limits: {@code rate} as its rate limit (null: none); with {@code keys} > 0, every added
         * job carries one of {@code keys} concurrency keys in turn, each limited to {@code keyLimit} jobs at once.
         */
        Deferlock(Redis redis, String name, QueueRateLimit rate, int keys, int keyLimit) {
            client = redis.jedis();
            queue = DelayQueue.builder(client, name, String.class).build();
            this.keys = keys;
            if (rate != null) {
                queue.rateLimit(rate);
            }
            if (keys > 0) {
                queue.concurrencyKeys().limit(keyLimit);
            }
        }

        @Override
        public void add(String payload, long delayMillis) {
            queue.enqueue(payload, Duration.ofMillis(delayMillis));
        }

        @Override
        public void addBulk(List<String> payloads, List<Long> delays) {
            List<NewJob<String>> jobs = new ArrayList<>(payloads.size());
            for (int i = 0; i < payloads.size(); i++) {
                NewJob<String> job = NewJob.of(payloads.get(i), Duration.ofMillis(delays.get(i)));
                jobs.add(keys > 0 ? job.withConcurrencyKey("k" + (added++ % keys)) : job);
            }
            queue.enqueueAll(jobs);
        }

        @Override
        public AutoCloseable consume(int n, Consumer<String> handler) {
            DelayQueueWorker<String> w = DelayQueueWorker.builder(queue, job -> handler.accept(job.payload()))
                    .concurrency(n)
                    .build()
                    .start();
            return () -> w.close(Duration.ofSeconds(5));
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * One zset scored by due time. As "raw": bare {@code ZADD} (pipelined for bulk), no consumer. As "seed":
     * the seed articles' design, consumers looping {@code ZRANGEBYSCORE -inf now LIMIT 0 1} + {@code ZREM},
     * sleeping 500 ms when nothing is due.
     */
    final class Zset implements QueueSide {
        static final long SEED_SLEEP_MILLIS = 500;
        private final RedisClient client;
        private final String key;
        private final boolean seed;

        Zset(Redis redis, String name, boolean seed) {
            this.client = redis.jedis();
            this.key = name;
            this.seed = seed;
        }

        @Override
        public void add(String payload, long delayMillis) {
            client.zadd(key, System.currentTimeMillis() + delayMillis, payload);
        }

        @Override
        public void addBulk(List<String> payloads, List<Long> delays) {
            long now = System.currentTimeMillis();
            try (AbstractPipeline p = client.pipelined()) {
                for (int i = 0; i < payloads.size(); i++) {
                    p.zadd(key, now + delays.get(i), payloads.get(i));
                }
                p.sync();
            }
        }

        @Override
        public AutoCloseable consume(int n, Consumer<String> handler) {
            if (!seed) {
                throw new UnsupportedOperationException("raw has no consumer");
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(() -> {
                    while (!stop.get()) {
                        List<String> due = client.zrange(
                                key,
                                ZRangeParams.zrangeByScoreParams(0, System.currentTimeMillis())
                                        .limit(0, 1));
                        if (due.isEmpty()) {
                            try {
                                Thread.sleep(SEED_SLEEP_MILLIS);
                            } catch (InterruptedException e) {
                                return;
                            }
                            continue;
                        }
                        if (client.zrem(key, due.get(0)) == 1) {
                            handler.accept(due.get(0));
                        }
                    }
                });
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            return () -> stopAll(threads, () -> stop.set(true));
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue}. Defaults: consumers loop {@code take()}
     * (its natural consumer loop; BLPOP with no timeout). Tuned: netty threads sized to the cores,
     * {@code StringCodec}, consumers take a batch with {@code poll(32)} and block in {@code take()} only when
     * it is empty. Bulk adds send {@code offerAsync} for the whole batch and wait for all (it has no bulk add).
     */
    // RDelayedQueue is deprecated in Redisson 4 in favour of the commercial RReliableQueue; it is what free users have.
    @SuppressWarnings("deprecation")
    final class Redisson implements QueueSide {
        private final RedissonClient redisson;
        private final RBlockingQueue<String> dest;
        private final RDelayedQueue<String> delayed;
        private final boolean tuned;

        Redisson(RedissonClient redisson, String name, boolean tuned) {
            this.redisson = redisson;
            this.dest = redisson.getBlockingQueue(name);
            this.delayed = redisson.getDelayedQueue(dest);
            this.tuned = tuned;
        }

        @Override
        public void add(String payload, long delayMillis) {
            delayed.offer(payload, delayMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void addBulk(List<String> payloads, List<Long> delays) {
            List<RFuture<Void>> f = new ArrayList<>(payloads.size());
            for (int i = 0; i < payloads.size(); i++) {
                f.add(delayed.offerAsync(payloads.get(i), delays.get(i), TimeUnit.MILLISECONDS));
            }
            f.forEach(x -> x.toCompletableFuture().join());
        }

        @Override
        public long ready() {
            return dest.size();
        }

        @Override
        public AutoCloseable consume(int n, Consumer<String> handler) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(() -> {
                    while (!stop.get() && !Thread.currentThread().isInterrupted()) {
                        try {
                            if (tuned) {
                                List<String> batch = dest.poll(32);
                                if (!batch.isEmpty()) {
                                    batch.forEach(handler);
                                    continue;
                                }
                            }
                            handler.accept(dest.take());
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            if (stop.get()) {
                                return;
                            }
                        }
                    }
                });
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            return () -> stopAll(threads, () -> stop.set(true));
        }

        @Override
        public void close() {
            try {
                delayed.destroy();
            } finally {
                redisson.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    private static void stopAll(List<Thread> threads, Runnable flag) throws InterruptedException {
        flag.run();
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(5_000);
        }
    }
}
