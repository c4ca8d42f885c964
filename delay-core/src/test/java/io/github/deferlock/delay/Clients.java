package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisServer;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;

/** Clients with a pool big enough for several workers in one test. */
final class Clients {
    private Clients() {}

    static RedisClient pooled(RedisServer server) {
        return pooled(server.hostAndPort());
    }

    static RedisClient pooled(HostAndPort hostAndPort) {
        return pooled(hostAndPort, DefaultJedisClientConfig.builder().build());
    }

    /** A pooled client whose calls wait up to {@code socketTimeoutMillis} for a reply (through a slow proxy). */
    static RedisClient pooled(HostAndPort hostAndPort, int socketTimeoutMillis) {
        return pooled(
                hostAndPort,
                DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(socketTimeoutMillis)
                        .build());
    }

    private static RedisClient pooled(HostAndPort hostAndPort, JedisClientConfig config) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        return RedisClient.builder()
                .hostAndPort(hostAndPort)
                .clientConfig(config)
                .poolConfig(pool)
                .build();
    }

    static long percentile(java.util.List<Long> sorted, double p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }
}
