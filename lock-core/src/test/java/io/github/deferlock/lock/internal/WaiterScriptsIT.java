package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Issue 19: the waiter queue keeps the scripts' answers to resends (a client resends after a lost reply):
 * a release that reserved the key for the queue's head, and the head's acquisition of it, give the same
 * answer again and change nothing; fencing tokens keep increasing.
 */
@ExtendWith(RedisExtension.class)
final class WaiterScriptsIT {
    private static final String KEY = "lock:{resend}";
    private static final String HOLDER = "a".repeat(32);
    private static final String HEAD = "b".repeat(32);
    private static final String HEAD_ID = "00000000000000b1";

    private static List<byte[]> bytes(String... values) {
        List<byte[]> out = new ArrayList<>();
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<?> acquire(RedisClient redis, String token, String waiter, String mode) {
        return (List<?>) LockLua.ACQUIRE.run(
                redis,
                bytes(KEY, KEY + ":fence", KEY + ":waiters", KEY + ":waiter-deadlines"),
                bytes(token, "30000", "8", waiter, mode, "1000", KEY + ":released:", "0"));
    }

    private static long release(RedisClient redis, String token) {
        return (Long) LockLua.RELEASE.run(
                redis,
                bytes(KEY, KEY + ":last-release", KEY + ":waiters", KEY + ":waiter-deadlines"),
                bytes(token, KEY + ":released:", "0", "60000", "1000"));
    }

    @Test
    void releaseToTheHeadAndTheHeadsAcquisition_resent_sameAnswersNothingChanged(RedisClient redis) {
        List<?> first = acquire(redis, HOLDER, "", "new");
        assertThat(first.get(0)).isEqualTo(1L);
        long holderFence = (Long) first.get(1);
        assertThat(acquire(redis, HEAD, HEAD_ID, "new").get(0)).isEqualTo(0L); // queued behind the holder
        assertThat(redis.get(KEY)).isEqualTo(HOLDER + "+");
        assertThat(redis.lrange(KEY + ":waiters", 0, -1)).containsExactly(HEAD_ID);

        assertThat(release(redis, HOLDER)).isEqualTo(2L); // reserved for the head, which was told
        assertThat(redis.get(KEY)).isEqualTo("~" + HEAD_ID);
        assertThat(release(redis, HOLDER)).isEqualTo(3L); // the resend: its own earlier success
        assertThat(redis.get(KEY)).isEqualTo("~" + HEAD_ID);

        List<?> granted = acquire(redis, HEAD, HEAD_ID, "wait");
        assertThat(granted.get(0)).isEqualTo(1L);
        assertThat((Long) granted.get(1)).isGreaterThan(holderFence + 7);
        assertThat(redis.get(KEY)).isEqualTo(HEAD); // nobody else queued: unmarked
        assertThat(redis.exists(KEY + ":waiters")).isFalse();
        assertThat(acquire(redis, HEAD, HEAD_ID, "wait")).isEqualTo(granted); // the resend: the same grant
        assertThat(redis.get(KEY)).isEqualTo(HEAD);

        assertThat(release(redis, HEAD)).isEqualTo(1L);
        assertThat(redis.exists(KEY)).isFalse();
    }

    @Test
    void acquire_reservedKeyOfAPrunedHead_movesTheReservationToTheNextLiveWaiter(RedisClient redis) {
        redis.rpush(KEY + ":waiters", "dead000000000000", HEAD_ID);
        redis.zadd(KEY + ":waiter-deadlines", 1, "dead000000000000"); // long expired
        redis.zadd(KEY + ":waiter-deadlines", 4_000_000_000_000d, HEAD_ID); // live
        redis.set(KEY, "~dead000000000000");
        assertThat(acquire(redis, HOLDER, "", "new").get(0)).isEqualTo(0L); // tryLock(): a live waiter is ahead
        assertThat(redis.get(KEY)).isEqualTo("~" + HEAD_ID);
        assertThat(redis.lrange(KEY + ":waiters", 0, -1)).containsExactly(HEAD_ID);
        assertThat(acquire(redis, HEAD, HEAD_ID, "wait").get(0)).isEqualTo(1L);
    }
}
