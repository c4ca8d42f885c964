package io.github.deferlock.lock;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * A protected resource that lives in Redis, for fault tests across JVMs: a write is accepted iff its fencing
 * token is larger than the last accepted one, and an occupancy counter detects two holders inside the
 * critical section at once. Keys: {@code res:{name}} (hash: value, token, accepted, rejected, overlaps,
 * inside, entered, staleAccepted).
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

    /**
     * KEYS[1] resource; ARGV[1] the holder's token. Like ENTER, and records the highest token that ever
     * entered ('entered').
     */
    private static final String ENTER_TOKEN =
            "if tonumber(ARGV[1]) > tonumber(redis.call('HGET', KEYS[1], 'entered') or '0') then\n"
                    + "  redis.call('HSET', KEYS[1], 'entered', ARGV[1])\n"
                    + "end\n"
                    + ENTER;

    /**
     * KEYS[1] resource; ARGV[1] token, ARGV[2] value. WRITE_EXIT that also counts 'staleAccepted': a write
     * accepted although a holder with a higher token had already entered (only an overlap can cause it).
     */
    private static final String WRITE_EXIT_COUNTING_STALE =
            "if tonumber(ARGV[1]) > tonumber(redis.call('HGET', KEYS[1], 'token') or '0')\n"
                    + "    and tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'entered') or '0') then\n"
                    + "  redis.call('HINCRBY', KEYS[1], 'staleAccepted', 1)\n"
                    + "end\n"
                    + WRITE_EXIT;

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

    /** Enters with {@code token} (counts overlaps, records the highest token that entered). */
    void enter(long token) {
        redis.eval(ENTER_TOKEN, List.of(key), List.of(Long.toString(token)));
    }

    /** {@link #writeAndExit} that also counts a stale write accepted ('staleAccepted'); pairs with {@link #enter(long)}. */
    boolean writeAndExitCountingStale(long token, long value) {
        Object r = redis.eval(
                WRITE_EXIT_COUNTING_STALE, List.of(key), List.of(Long.toString(token), Long.toString(value)));
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
