package io.github.deferlock.lock;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * A protected resource that lives in Redis, for fault tests across JVMs: a write is accepted iff its fencing
 * token is larger than the last accepted one, and an occupancy counter detects two holders inside the
 * critical section at once. Keys: {@code res:{name}} (hash: value, token, accepted, rejected, overlaps,
 * inside).
 */
final class FencedResource {
    /** KEYS[1] resource; ARGV[1] token, ARGV[2] value. Returns 1 accepted, 0 rejected (stale token). */
    private static final String WRITE = "local last = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')\n"
            + "if tonumber(ARGV[1]) > last then\n"
            + "  redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])\n"
            + "  redis.call('HINCRBY', KEYS[1], 'accepted', 1)\n"
            + "  return 1\n"
            + "end\n"
            + "redis.call('HINCRBY', KEYS[1], 'rejected', 1)\n"
            + "return 0\n";

    /**
     * KEYS[1] resource. Enters the critical section, counting an overlap when someone else is inside; returns
     * the current value.
     */
    private static final String ENTER = "if redis.call('HINCRBY', KEYS[1], 'inside', 1) > 1 then\n"
            + "  redis.call('HINCRBY', KEYS[1], 'overlaps', 1)\n"
            + "end\n"
            + "return tonumber(redis.call('HGET', KEYS[1], 'value') or '0')\n";

    /** The WRITE script, then leaves the critical section. */
    private static final String WRITE_EXIT = "redis.call('HINCRBY', KEYS[1], 'inside', -1)\n" + WRITE;

    private final UnifiedJedis redis;
    private final String key;

    FencedResource(UnifiedJedis redis, String name) {
        this.redis = redis;
        this.key = "res:{" + name + "}";
    }

    /** Enters the critical section (Redis-side occupancy count) and reads the value: one round trip. */
    long enterAndRead() {
        return (Long) redis.eval(ENTER, List.of(key), List.of());
    }

    /** Like {@link #write} and leaves the critical section in the same round trip. */
    boolean writeAndExit(long token, long value) {
        Object r = redis.eval(WRITE_EXIT, List.of(key), List.of(Long.toString(token), Long.toString(value)));
        return Long.valueOf(1).equals(r);
    }

    /** The current value (0 when never written). */
    long read() {
        String v = redis.hget(key, "value");
        return v == null ? 0 : Long.parseLong(v);
    }

    /** Writes {@code value} with {@code token}; true when accepted. */
    boolean write(long token, long value) {
        Object r = redis.eval(WRITE, List.of(key), List.of(Long.toString(token), Long.toString(value)));
        return Long.valueOf(1).equals(r);
    }

    long counter(String field) {
        String v = redis.hget(key, field);
        return v == null ? 0 : Long.parseLong(v);
    }

    String key() {
        return key;
    }
}
