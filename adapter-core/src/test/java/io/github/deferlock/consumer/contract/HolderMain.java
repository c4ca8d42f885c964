package io.github.deferlock.consumer.contract;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.RedisClient;

/**
 * A process that holds the locks {@code order:<key>} (prefix {@code t:}) for each key argument until the key
 * {@code release-now} appears; then it sets {@code released}, unlocks and prints RELEASED. Args: port, keys...
 * The one copy the adapters' tests share (hot keys held by another JVM).
 */
public final class HolderMain {
    private HolderMain() {}

    public static void main(String[] args) throws Exception {
        try (RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build()) {
            List<DistributedLock> held = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                DistributedLock lock = locks.get("order:" + args[i]);
                if (!lock.tryLock(Duration.ZERO, Duration.ofMinutes(3))) {
                    throw new IllegalStateException("cannot take order:" + args[i]);
                }
                held.add(lock);
            }
            System.out.println("HELD");
            System.out.flush();
            while (!redis.exists("release-now")) {
                Thread.sleep(20);
            }
            redis.set("released", "1");
            for (DistributedLock l : held) {
                l.unlock();
            }
            System.out.println("RELEASED");
            System.out.flush();
        }
    }
}
