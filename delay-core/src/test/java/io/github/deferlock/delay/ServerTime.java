package io.github.deferlock.delay;

import java.time.Instant;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/** Reads the Redis server clock in tests. */
final class ServerTime {
    private ServerTime() {}

    /** The server's {@code TIME}. */
    static Instant now(UnifiedJedis redis) {
        List<?> t = (List<?>) redis.eval("return redis.call('TIME')");
        return Instant.ofEpochSecond(Long.parseLong((String) t.get(0)), Long.parseLong((String) t.get(1)) * 1000);
    }
}
