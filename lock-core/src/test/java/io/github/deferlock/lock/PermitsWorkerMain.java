package io.github.deferlock.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A child JVM for {@link PermitsJvmIT}: {@code host port resourceHost resourcePort child threads holdMs}. Each
 * thread takes a permit of "jobs" (limit 3, default lease 2 s, watchdog), enters the {@link SlotResource}
 * with its slot and fencing token, writes twice, {@code holdMs / 2} apart, leaves, releases; until the key {@code stop} appears in the
 * resource's Redis.
 * Prints {@code READY}, then {@code DONE acquired= lost= errors=}.
 */
final class PermitsWorkerMain {
    private PermitsWorkerMain() {}

    public static void main(String[] args) throws Exception {
        HostAndPort permitsAt = new HostAndPort(args[0], Integer.parseInt(args[1]));
        HostAndPort resourceAt = new HostAndPort(args[2], Integer.parseInt(args[3]));
        String child = args[4];
        int threads = Integer.parseInt(args[5]);
        long half = Long.parseLong(args[6]) / 2;
        AtomicLong acquired = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        try (RedisClient redis = RedisClient.builder().hostAndPort(permitsAt).build();
                RedisClient resourceRedis =
                        RedisClient.builder().hostAndPort(resourceAt).build();
                RedisLocks locks = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofSeconds(2))
                        .build()) {
            DistributedPermits jobs = locks.permits("jobs", 3);
            SlotResource resource = new SlotResource(resourceRedis, 3);
            List<Thread> workers = new ArrayList<>();
            System.out.println("READY");
            for (int t = 0; t < threads; t++) {
                int n = t;
                Thread worker = new Thread(() -> {
                    long i = 0;
                    while (!resourceRedis.exists("stop")) {
                        try {
                            PermitLease permit =
                                    jobs.tryAcquire(Duration.ofSeconds(2)).orElse(null);
                            if (permit == null) {
                                continue;
                            }
                            acquired.incrementAndGet();
                            String holder = child + "-" + n + "-" + (i++);
                            if (resource.enter(permit.slot(), permit.fencingToken(), holder, child)) {
                                Thread.sleep(half);
                                resource.write(permit.slot(), permit.fencingToken(), child);
                                Thread.sleep(half);
                                resource.write(permit.slot(), permit.fencingToken(), child);
                                resource.exit(permit.slot(), holder);
                            }
                            try {
                                permit.release();
                            } catch (LockLostException e) {
                                lost.incrementAndGet();
                            }
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                            System.out.println("ERROR " + e);
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
        System.out.println("DONE acquired=" + acquired + " lost=" + lost + " errors=" + errors);
    }
}
