package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;

/**
 * A released permit wakes one waiting call of a process, not all of them (docs/locks.md, "Permits": the
 * notice goes to the process of the waiter that became eligible, which wakes its first local waiter). With 6
 * threads of one JVM on 2 permits, 4 calls wait at any time; a release that woke every local waiter would send
 * 4 acquire scripts, 3 of them refused, for each cycle.
 */
@ExtendWith(RedisExtension.class)
final class PermitWakeIT {
    private static final int THREADS = 6;
    private static final int LIMIT = 2;
    private static final int CYCLES_PER_THREAD = 60;

    @Test
    void release_withManyLocalWaiters_wakesOneOfThem(RedisServer server, RedisClient redis) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedPermits permits = locks.permits("wake", LIMIT);
            permits.acquire(Duration.ofSeconds(5)).close(); // scripts loaded
            long before = ScriptCalls.count(server);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < CYCLES_PER_THREAD; i++) {
                        try (PermitLease lease = permits.acquire(Duration.ofSeconds(30))) {
                            assertThat(lease.slot()).isBetween(0, LIMIT - 1);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(120, TimeUnit.SECONDS);
            }
            long cycles = (long) THREADS * CYCLES_PER_THREAD;
            double perCycle = (double) (ScriptCalls.count(server) - before) / cycles;
            LoggerFactory.getLogger(PermitWakeIT.class)
                    .info(
                            "{} permit cycles, {} threads, {} permits: {} scripts per cycle",
                            cycles,
                            THREADS,
                            LIMIT,
                            perCycle);
            // a cycle needs a release and a granted acquire; a caller that finds both permits taken is refused once
            // and queued; polls (10 ms doubling to 200 ms) add a few; waking all 4 waiters would add 3 per cycle
            assertThat(perCycle).as("scripts per permit cycle").isLessThan(4.0);
        } finally {
            pool.shutdownNow();
        }
    }
}
