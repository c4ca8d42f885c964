package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class MutualExclusionIT {
    private static final int SERVICES = 4;
    private static final int THREADS_PER_SERVICE = 8;
    private static final int ITERATIONS = 6;

    private record Interval(long token, long enter, long exit) {}

    @Test
    void lock_8ThreadsX4Services_racyCounterExactAndFencedIntervalsDisjoint(RedisServer server, RedisClient redis)
            throws Exception {
        List<RedisClient> clients = new ArrayList<>();
        List<RedisLocks> services = new ArrayList<>();
        ConcurrentLinkedQueue<Interval> intervals = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(SERVICES * THREADS_PER_SERVICE);
        try {
            for (int s = 0; s < SERVICES; s++) {
                RedisClient client = server.newClient();
                clients.add(client);
                services.add(RedisLocks.builder(client).build());
            }
            List<Future<?>> futures = new ArrayList<>();
            for (int s = 0; s < SERVICES; s++) {
                RedisClient client = clients.get(s);
                DistributedLock lock = services.get(s).get("counter");
                for (int t = 0; t < THREADS_PER_SERVICE; t++) {
                    futures.add(pool.submit(() -> {
                        for (int i = 0; i < ITERATIONS; i++) {
                            lock.lock();
                            try {
                                long enter = System.nanoTime();
                                String v = client.get("count");
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // widen the race
                                client.set("count", Integer.toString(v == null ? 1 : Integer.parseInt(v) + 1));
                                intervals.add(new Interval(lock.fencingToken(), enter, System.nanoTime()));
                            } finally {
                                lock.unlock();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            services.forEach(RedisLocks::close);
            clients.forEach(RedisClient::close);
        }

        int total = SERVICES * THREADS_PER_SERVICE * ITERATIONS;
        assertThat(redis.get("count")).isEqualTo(Integer.toString(total));
        List<Interval> byEnter = new ArrayList<>(intervals);
        byEnter.sort(Comparator.comparingLong(Interval::enter));
        assertThat(byEnter).hasSize(total);
        for (int i = 1; i < byEnter.size(); i++) {
            Interval prev = byEnter.get(i - 1);
            Interval next = byEnter.get(i);
            assertThat(next.token()).as("token order at %d", i).isGreaterThan(prev.token());
            assertThat(next.enter()).as("overlap at %d", i).isGreaterThan(prev.exit());
        }
        assertThat(Duration.ofNanos(
                        byEnter.get(total - 1).exit() - byEnter.get(0).enter()))
                .isLessThan(Duration.ofSeconds(60));
    }
}
