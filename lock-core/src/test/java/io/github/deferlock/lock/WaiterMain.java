package io.github.deferlock.lock;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * A waiting process for {@link WaiterQueueIT}: {@code host port name}. Prints READY, then {@code lock()}s
 * {@code name} (queueing in Redis while another holds it), prints {@code ACQUIRED <fencing token>}, unlocks
 * and exits.
 */
final class WaiterMain {
    private WaiterMain() {}

    public static void main(String[] args) {
        HostAndPort address = new HostAndPort(args[0], Integer.parseInt(args[1]));
        try (RedisClient redis = RedisClient.builder().hostAndPort(address).build();
                RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get(args[2]);
            System.out.println("READY");
            lock.lock();
            System.out.println("ACQUIRED " + lock.fencingToken());
            lock.unlock();
        }
    }
}
