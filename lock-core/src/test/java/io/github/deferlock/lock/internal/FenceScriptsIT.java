package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Issue 30: the fencing counter's raise (fence.lua, one {@code SET ... GET} where there were {@code GET},
 * {@code SET}, {@code INCRBY}) keeps every rule of the counter: a counter missing or below the server clock
 * starts the block at the clock, one at or above it goes on from its value, a value that is not an integer
 * (or a key of another type) fails the acquisition and is left exactly as it was, and so is the lock key.
 */
@ExtendWith(RedisExtension.class)
final class FenceScriptsIT {
    private static final String KEY = "lock:{fence}";
    private static final String FENCE = KEY + ":fence";
    private static final String TOKEN = "a".repeat(32);

    private static List<byte[]> bytes(String... values) {
        List<byte[]> out = new ArrayList<>();
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<Object> acquire(RedisClient redis, String token, int block) {
        @SuppressWarnings("unchecked")
        List<Object> reply = (List<Object>) LockLua.ACQUIRE.run(
                redis,
                bytes(KEY, FENCE, KEY + ":waiters", KEY + ":waiter-deadlines"),
                bytes(token, "30000", Integer.toString(block), "", "new", "1000", KEY + ":released:", "0"));
        return reply;
    }

    @Test
    void acquire_counterMissingOrBelowTheClock_blockStartsAtTheClock(RedisClient redis) {
        long before = System.currentTimeMillis() * 1_000L - 1_000_000L; // 1 s of slack for the clocks
        List<Object> first = acquire(redis, TOKEN, 8);
        long last = (Long) first.get(1);
        assertThat(last - 7).as("the block's first token: the server clock").isGreaterThan(before);
        assertThat(Long.parseLong(redis.get(FENCE))).isEqualTo(last);
        redis.del(KEY);

        redis.set(FENCE, "100");
        long second = (Long) acquire(redis, "b".repeat(32), 8).get(1);
        assertThat(second - 7).as("a counter below the clock is raised").isGreaterThan(before);
        assertThat(Long.parseLong(redis.get(FENCE))).isEqualTo(second);
    }

    @Test
    void acquire_counterAboveTheClock_goesOnFromItsValue(RedisClient redis) {
        long ahead = System.currentTimeMillis() * 1_000L + 3_600_000_000L; // an hour ahead: a clock behind
        redis.set(FENCE, Long.toString(ahead));
        assertThat(acquire(redis, TOKEN, 8)).containsExactly((Object) 1L, ahead + 8);
        assertThat(redis.get(FENCE)).isEqualTo(Long.toString(ahead + 8));
        redis.del(KEY);
        assertThat(acquire(redis, "b".repeat(32), 1)).containsExactly((Object) 1L, ahead + 9);
        assertThat(acquire(redis, "b".repeat(32), 1))
                .as("a resend: the same grant")
                .containsExactly((Object) 1L, ahead + 9);
        redis.del(KEY);

        // 2^53 + 1: beyond a Lua number's exact integers INCRBY counts (the reply passes through a Lua number,
        // as it always did; such tokens are centuries of microseconds away)
        long huge = 9_007_199_254_740_993L;
        redis.set(FENCE, Long.toString(huge));
        assertThat(acquire(redis, TOKEN, 8).get(0)).isEqualTo(1L);
        assertThat(redis.get(FENCE)).isEqualTo(Long.toString(huge + 8));
        redis.del(KEY);

        redis.set(FENCE, Long.toString(Long.MAX_VALUE - 3));
        assertThatThrownBy(() -> acquire(redis, TOKEN, 8)).hasMessageContaining("overflow");
        assertThat(redis.get(FENCE)).isEqualTo(Long.toString(Long.MAX_VALUE - 3));
        assertThat(redis.exists(KEY)).as("the lock key is removed again").isFalse();
    }

    @Test
    void acquire_counterNotAnInteger_failsAndLeavesItAsItWas(RedisClient redis) {
        redis.set(FENCE, "not a number");
        redis.pexpire(FENCE, 600_000);
        assertThatThrownBy(() -> acquire(redis, TOKEN, 8)).hasMessageContaining("not an integer");
        assertThat(redis.get(FENCE)).isEqualTo("not a number");
        assertThat(redis.pttl(FENCE)).as("its TTL too").isBetween(1L, 600_000L);
        assertThat(redis.exists(KEY)).isFalse();

        redis.del(FENCE);
        redis.hset(FENCE, "f", "v");
        assertThatThrownBy(() -> acquire(redis, TOKEN, 8)).hasMessageContaining("WRONGTYPE");
        assertThat(redis.hget(FENCE, "f")).isEqualTo("v");
        assertThat(redis.exists(KEY)).isFalse();
    }
}
