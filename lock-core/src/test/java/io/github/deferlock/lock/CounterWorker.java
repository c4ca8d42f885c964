package io.github.deferlock.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A second process for {@link TwoJvmMutualExclusionIT}: {@code host port threads iterations} — increments
 * the Redis key {@code count} with a racy GET, pause, SET inside lock {@code counter}, then prints DONE.
 */
final class CounterWorker {
    private CounterWorker() {}

    public static void main(String[] args) throws Exception {
        HostAndPort address = new HostAndPort(args[0], Integer.parseInt(args[1]));
        int threads = Integer.parseInt(args[2]);
        int iterations = Integer.parseInt(args[3]);
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("counter");
            System.out.println("READY");
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < iterations; i++) {
                        lock.lock();
                        try {
                            String v = redis.get("count");
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                            redis.set("count", Integer.toString(v == null ? 1 : Integer.parseInt(v) + 1));
                        } finally {
                            lock.unlock();
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        System.out.println("DONE");
    }
}
