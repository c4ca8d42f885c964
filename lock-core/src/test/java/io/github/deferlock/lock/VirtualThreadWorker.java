package io.github.deferlock.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Runs on a JDK 21+ for {@link VirtualThreadIT}: {@code host port} — 1,000 virtual threads on 10 keys, each
 * taking a handle, yielding (so it may resume on another carrier), bumping a racy per-key counter and
 * releasing. Prints {@code RESULT <sum> <violations>}. Virtual-thread APIs are called reflectively because
 * the tests compile for Java 17.
 */
final class VirtualThreadWorker {
    private VirtualThreadWorker() {}

    public static void main(String[] args) throws Exception {
        HostAndPort address = new HostAndPort(args[0], Integer.parseInt(args[1]));
        int keys = 10;
        int[] counters = new int[keys];
        AtomicInteger[] inside = new AtomicInteger[keys];
        AtomicInteger violations = new AtomicInteger();
        for (int k = 0; k < keys; k++) {
            inside[k] = new AtomicInteger();
        }
        ExecutorService executor = (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                int k = i % keys;
                DistributedLock lock = locks.get("vt-" + k);
                futures.add(executor.submit(() -> {
                    try (LockLease lease = lock.acquire(Duration.ofSeconds(60))) {
                        if (inside[k].incrementAndGet() != 1 || !lease.isHeld()) {
                            violations.incrementAndGet();
                        }
                        int v = counters[k];
                        Thread.yield();
                        counters[k] = v + 1;
                        inside[k].decrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
            boolean virtual = (boolean) Thread.class
                    .getMethod("isVirtual")
                    .invoke(executor.submit(Thread::currentThread).get());
            executor.shutdown();
            int sum = 0;
            for (int c : counters) {
                sum += c;
            }
            System.out.println("RESULT " + sum + " " + violations.get() + " virtual=" + virtual);
        }
    }
}
