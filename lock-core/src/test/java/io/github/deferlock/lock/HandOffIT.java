package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class HandOffIT {
    private static final int THREADS = 8;
    private static final int ITERATIONS = 25;

    @Test
    void lock_8ThreadsOneKey1msHold_everyThreadServedWithBoundedWait(RedisClient redis) throws Exception {
        long[] waits = new long[THREADS * ITERATIONS];
        AtomicInteger slot = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        long[] gaps = new long[THREADS * ITERATIONS];
        AtomicInteger gapSlot = new AtomicInteger();
        java.util.concurrent.atomic.AtomicLong lastExit = new java.util.concurrent.atomic.AtomicLong();
        int[] perThread = new int[THREADS];
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("hot");
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < ITERATIONS; i++) {
                        long start = System.nanoTime();
                        lock.lock();
                        try {
                            long entered = System.nanoTime();
                            waits[slot.getAndIncrement()] = entered - start;
                            if (lastExit.get() != 0 && start < lastExit.get()) { // it queued behind a holder
                                gaps[gapSlot.getAndIncrement()] = entered - lastExit.get();
                            }
                            assertThat(inside.incrementAndGet()).isEqualTo(1);
                            perThread[thread]++;
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                            inside.decrementAndGet();
                            lastExit.set(System.nanoTime());
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Arrays.sort(waits);
        Duration max = Duration.ofNanos(waits[waits.length - 1]);
        Duration p99 = Duration.ofNanos(waits[(int) (waits.length * 0.99) - 1]);
        Duration p50 = Duration.ofNanos(waits[waits.length / 2]);
        long[] handOffs = Arrays.copyOf(gaps, gapSlot.get());
        Arrays.sort(handOffs);
        LoggerFactory.getLogger(HandOffIT.class)
                .info(
                        "{} threads, 1 ms hold: queue wait p50 {} p99 {} max {}; hand-off (unlock to next entry,"
                                + " release + acquire round trips) p50 {} p99 {} max {}",
                        THREADS,
                        p50,
                        p99,
                        max,
                        Duration.ofNanos(handOffs[handOffs.length / 2]),
                        Duration.ofNanos(handOffs[(int) (handOffs.length * 0.99)]),
                        Duration.ofNanos(handOffs[handOffs.length - 1]));
        assertThat(perThread).containsOnly(ITERATIONS);
        assertThat(max).isLessThan(Duration.ofSeconds(2));
        assertThat(redis.exists("lock:{hot}")).isFalse();
    }
}
