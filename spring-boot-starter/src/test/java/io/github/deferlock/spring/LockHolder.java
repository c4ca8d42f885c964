package io.github.deferlock.spring;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import redis.clients.jedis.RedisClient;

/**
 * A second JVM that holds a lock: {@code LockHolder <redis-uri> <prefix> <name>} prints {@code HELD} once it has
 * the lock, and releases it (printing {@code RELEASED}) once the key {@code release:<name>} exists in Redis.
 */
public final class LockHolder {

    private LockHolder() {}

    public static void main(String[] args) throws Exception {
        try (RedisClient redis = RedisClient.create(args[0]);
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix(args[1]).build()) {
            DistributedLock lock = locks.get(args[2]);
            if (!lock.tryLock(Duration.ofSeconds(30))) {
                System.out.println("BUSY");
                return;
            }
            System.out.println("HELD");
            System.out.flush();
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!redis.exists("release:" + args[2]) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            lock.unlock();
            System.out.println("RELEASED");
        }
    }
}
