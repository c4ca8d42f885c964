package io.github.deferlock.lock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A contending process for {@link CrossProcessFairnessIT}: {@code host port name index seconds}. Locks and
 * unlocks once (so a cold JVM's first request does not lag far behind its ticket), prints READY,
 * waits until the key {@code fair:go} exists, then loops on one thread: takes an arrival ticket ({@code INCR
 * fair:ticket}) just before {@code lock()}, holds about 1 ms and unlocks; after a 1 s warm-up, for {@code
 * seconds}, it also appends {@code ticket:index:waitMicros} to the list {@code fair:grants} inside the lock.
 * Prints {@code DONE n}.
 */
final class FairnessWorkerMain {
    /** Contended, but not recorded: JIT compilation competes for the cores at first. */
    static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private FairnessWorkerMain() {}

    public static void main(String[] args) throws Exception {
        HostAndPort address = new HostAndPort(args[0], Integer.parseInt(args[1]));
        String name = args[2];
        String index = args[3];
        long runNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get(name);
            lock.lock(); // warm up: classes loaded, scripts cached, before anyone takes a ticket
            lock.unlock();
            System.out.println("READY");
            while (!redis.exists("fair:go")) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            long recordFrom = System.nanoTime() + WARM_UP_NANOS;
            long end = recordFrom + runNanos;
            int n = 0;
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                boolean record = start - recordFrom >= 0;
                long ticket = redis.incr("fair:ticket");
                lock.lock();
                try {
                    long waited = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
                    if (record) {
                        redis.rpush("fair:grants", ticket + ":" + index + ":" + waited);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                } finally {
                    lock.unlock();
                }
                n++;
            }
            System.out.println("DONE " + n);
        }
    }
}
