package io.github.deferlock.lock;

import io.github.deferlock.testing.RedisServer;
import redis.clients.jedis.Jedis;

/** How many scripts a redis-server has run so far ({@code EVALSHA} and {@code EVAL} calls in INFO commandstats). */
final class ScriptCalls {
    private ScriptCalls() {}

    static long count(RedisServer server) {
        try (Jedis jedis = server.newConnection()) {
            long calls = 0;
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    String c = line.substring(line.indexOf("calls=") + 6);
                    calls += Long.parseLong(c.substring(0, c.indexOf(',')));
                }
            }
            return calls;
        }
    }
}
