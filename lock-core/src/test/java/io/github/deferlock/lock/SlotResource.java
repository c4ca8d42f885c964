package io.github.deferlock.lock;

import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * A fenced resource with slots, in a Redis of its own (not the one holding the permits), for {@link
 * PermitsJvmIT}: an entry into slot {@code s} is accepted iff its fencing token is larger than the last one
 * accepted for {@code s}; the entry supersedes the slot's previous occupant (its later writes are rejected). It
 * counts what the test asserts, all in the hash {@code slots}:
 *
 * <ul>
 *   <li>{@code badSlot}: entries with a slot outside [0, limit);
 *   <li>{@code maxInside}: the most accepted occupants inside at once (superseded ones are out);
 *   <li>{@code takeover:<child>}: a slot entered while an occupant of child {@code child} had not left it;
 *   <li>{@code stale:<child>}: entries or writes of {@code child} rejected for a stale token;
 *   <li>{@code entered}, {@code entered:<slot>}, {@code writes}.
 * </ul>
 */
final class SlotResource {
    /** KEYS[1] hash, KEYS[2] inside set; ARGV slot, token, holder, child, limit. Returns 1 entered, 0 stale. */
    private static final String ENTER = "local slot, token = tonumber(ARGV[1]), tonumber(ARGV[2])\n"
            + "if slot < 0 or slot >= tonumber(ARGV[5]) then redis.call('HINCRBY', KEYS[1], 'badSlot', 1) end\n"
            + "local last = tonumber(redis.call('HGET', KEYS[1], 'last:' .. slot) or '0')\n"
            + "if token <= last then\n"
            + "  redis.call('HINCRBY', KEYS[1], 'stale:' .. ARGV[4], 1)\n"
            + "  return 0\n"
            + "end\n"
            + "redis.call('HSET', KEYS[1], 'last:' .. slot, ARGV[2])\n"
            + "local prev = redis.call('HGET', KEYS[1], 'cur:' .. slot)\n"
            + "if prev then\n"
            + "  redis.call('HINCRBY', KEYS[1], 'takeover:' .. redis.call('HGET', KEYS[1], 'child:' .. prev), 1)\n"
            + "  redis.call('SREM', KEYS[2], prev)\n"
            + "end\n"
            + "redis.call('HSET', KEYS[1], 'cur:' .. slot, ARGV[3], 'child:' .. ARGV[3], ARGV[4])\n"
            + "redis.call('SADD', KEYS[2], ARGV[3])\n"
            + "local n = redis.call('SCARD', KEYS[2])\n"
            + "if n > tonumber(redis.call('HGET', KEYS[1], 'maxInside') or '0') then\n"
            + "  redis.call('HSET', KEYS[1], 'maxInside', n)\n"
            + "end\n"
            + "redis.call('HINCRBY', KEYS[1], 'entered', 1)\n"
            + "redis.call('HINCRBY', KEYS[1], 'entered:' .. slot, 1)\n"
            + "return 1\n";

    /** KEYS[1] hash; ARGV slot, token, child. A write: accepted iff the token is still the slot's latest. */
    private static final String WRITE = "if redis.call('HGET', KEYS[1], 'last:' .. ARGV[1]) == ARGV[2] then\n"
            + "  redis.call('HINCRBY', KEYS[1], 'writes', 1)\n"
            + "  return 1\n"
            + "end\n"
            + "redis.call('HINCRBY', KEYS[1], 'stale:' .. ARGV[3], 1)\n"
            + "return 0\n";

    /** KEYS[1] hash, KEYS[2] inside set; ARGV slot, holder. Leaves the slot if still its occupant. */
    private static final String EXIT = "if redis.call('HGET', KEYS[1], 'cur:' .. ARGV[1]) == ARGV[2] then\n"
            + "  redis.call('HDEL', KEYS[1], 'cur:' .. ARGV[1])\n"
            + "end\n"
            + "redis.call('SREM', KEYS[2], ARGV[2])\n"
            + "return 1\n";

    private static final List<String> KEYS = List.of("slots", "slots:inside");

    private final UnifiedJedis redis;
    private final int limit;

    SlotResource(UnifiedJedis redis, int limit) {
        this.redis = redis;
        this.limit = limit;
    }

    boolean enter(int slot, long token, String holder, String child) {
        return Long.valueOf(1)
                .equals(redis.eval(
                        ENTER, KEYS, List.of(Integer.toString(slot), Long.toString(token), holder, child, "" + limit)));
    }

    boolean write(int slot, long token, String child) {
        return Long.valueOf(1)
                .equals(redis.eval(
                        WRITE, List.of(KEYS.get(0)), List.of(Integer.toString(slot), Long.toString(token), child)));
    }

    void exit(int slot, String holder) {
        redis.eval(EXIT, KEYS, List.of(Integer.toString(slot), holder));
    }

    /** Whether an occupant of child {@code child} is inside a slot now. */
    boolean occupiedBy(String child) {
        for (int slot = 0; slot < limit; slot++) {
            String holder = redis.hget(KEYS.get(0), "cur:" + slot);
            if (holder != null && holder.startsWith(child + "-")) {
                return true;
            }
        }
        return false;
    }

    Map<String, String> counters() {
        return redis.hgetAll(KEYS.get(0));
    }

    static long count(Map<String, String> counters, String field) {
        return Long.parseLong(counters.getOrDefault(field, "0"));
    }
}
