package io.github.deferlock.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A separate JVM for {@link LockFaultIT}. Modes:
 *
 * <ul>
 *   <li>{@code count host port threads iterations}: racy read-modify-write of {@link FencedResource} "l1"
 *       under lock "l1", each write fenced; prints {@code OPS ok= failed= unknown=} then {@code DONE}.
 *   <li>{@code hold host port leaseMs name}: acquires {@code name} (watchdog, default lease {@code leaseMs}),
 *       prints {@code HELD <token>}, then writes to resource {@code name} with its token every 50 ms, printing
 *       {@code WRITE <accepted>}; prints {@code LOST <nanoTime>} when the listener reports the loss.
 * </ul>
 */
final class FencedWorkerMain {
    private FencedWorkerMain() {}

    public static void main(String[] args) throws Exception {
        HostAndPort address = new HostAndPort(args[1], Integer.parseInt(args[2]));
        if (args[0].equals("count")) {
            count(address, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } else {
            hold(address, Long.parseLong(args[3]), args[4]);
        }
    }

    private static void count(HostAndPort address, int threads, int iterations) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong unknown = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("l1");
            FencedResource resource = new FencedResource(redis, "l1");
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < iterations; i++) {
                        try {
                            lock.lock();
                        } catch (LockException e) {
                            unknown.incrementAndGet(); // outcome unknown: counts as possibly holding
                            continue;
                        }
                        ok.incrementAndGet();
                        try {
                            long v = resource.enterAndRead(); // racy read-modify-write
                            if (!resource.writeAndExit(lock.fencingToken(), v + 1)) {
                                rejected.incrementAndGet();
                            }
                        } finally {
                            try {
                                lock.unlock();
                            } catch (LockException e) {
                                failed.incrementAndGet();
                            }
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
        System.out.println("OPS ok=" + ok + " failed=" + failed + " unknown=" + unknown + " rejected=" + rejected);
        System.out.println("DONE");
    }

    private static void hold(HostAndPort address, long leaseMs, String name) throws InterruptedException {
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(leaseMs))
                        .listener(new LockListener() {
                            @Override
                            public void onLost(String key, long fencingToken, Throwable cause) {
                                System.out.println("LOST " + System.nanoTime());
                            }
                        })
                        .build()) {
            DistributedLock lock = locks.get(name);
            lock.lock();
            long token = lock.fencingToken();
            FencedResource resource = new FencedResource(redis, name);
            System.out.println("HELD " + token);
            long i = 0;
            while (true) {
                try {
                    System.out.println("WRITE " + resource.write(token, ++i));
                } catch (RuntimeException e) {
                    System.out.println("WRITE error " + e);
                }
                Thread.sleep(50);
            }
        }
    }
}
