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
 * a release that granted the key to the queue's head (issue 30: a direct hand-off), and the head's request
 * that finds the grant, give the same answer again and change nothing; fencing tokens keep increasing.
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
                bytes(KEY, KEY + ":last-release", KEY + ":waiters", KEY + ":waiter-deadlines", KEY + ":fence"),
                bytes(token, KEY + ":released:", "0", "60000", "1000", "8"));
    }

    private static long leave(RedisClient redis, String waiter) {
        return (Long) LockLua.LEAVE.run(
                redis,
                bytes(KEY, KEY + ":waiters", KEY + ":waiter-deadlines"),
                bytes(waiter, "1000", KEY + ":released:", "0"));
    }

    @Test
    void releaseGrantsTheHeadAndTheHeadsRequestFindsIt_resent_sameAnswersNothingChanged(RedisClient redis) {
        List<?> first = acquire(redis, HOLDER, "", "new");
        assertThat(first.get(0)).isEqualTo(1L);
        long holderFence = (Long) first.get(1);
        assertThat(acquire(redis, HEAD, HEAD_ID, "new").get(0)).isEqualTo(0L); // queued behind the holder
        assertThat(redis.get(KEY)).isEqualTo(HOLDER + "+");
        assertThat(redis.lrange(KEY + ":waiters", 0, -1)).containsExactly(HEAD_ID);

        assertThat(release(redis, HOLDER)).isEqualTo(2L); // granted to the head, which was told
        String grant = redis.get(KEY);
        assertThat(grant).startsWith(HEAD_ID).hasSize(32); // the head's id and the block's last token
        long fence = Long.parseLong(grant.substring(16));
        assertThat(fence).isGreaterThan(holderFence + 7);
        assertThat(redis.pttl(KEY)).isBetween(1L, 1000L); // no longer than the head's entry had left
        assertThat(redis.exists(KEY + ":waiters")).isFalse(); // the head was popped
        assertThat(release(redis, HOLDER)).isEqualTo(3L); // the resend: its own earlier success
        assertThat(redis.get(KEY)).isEqualTo(grant);

        // a head that missed the notice: its next request (any fresh token) finds its grant and extends it
        List<?> granted = acquire(redis, "c".repeat(32), HEAD_ID, "wait");
        assertThat(granted.get(0)).isEqualTo(1L);
        assertThat(granted.get(1)).isEqualTo(fence);
        assertThat(new String((byte[]) granted.get(2), StandardCharsets.US_ASCII))
                .isEqualTo(grant);
        assertThat(redis.pttl(KEY)).isGreaterThan(20_000L); // the lease (30 s)
        assertThat(acquire(redis, "d".repeat(32), HEAD_ID, "wait").get(1)).isEqualTo(fence); // resend: same grant
        assertThat(redis.get(KEY)).isEqualTo(grant);

        assertThat(release(redis, grant)).isEqualTo(1L);
        assertThat(redis.exists(KEY)).isFalse();
        List<?> next = acquire(redis, HOLDER, "", "new");
        assertThat((Long) next.get(1)).isGreaterThan(fence + 7); // fencing tokens keep rising past the grant's block
    }

    @Test
    void release_headsEntryNearItsDeadline_grantLivesOnlyUntilThatDeadline(RedisClient redis) {
        assertThat(acquire(redis, HOLDER, "", "new").get(0)).isEqualTo(1L);
        assertThat(acquire(redis, HEAD, HEAD_ID, "new").get(0)).isEqualTo(0L);
        List<?> time = (List<?>) redis.eval("return redis.call('TIME')");
        long now =
                Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
        redis.zadd(KEY + ":waiter-deadlines", now + 300, HEAD_ID); // the head last asked 700 ms ago
        assertThat(release(redis, HOLDER)).isEqualTo(2L);
        assertThat(redis.get(KEY)).startsWith(HEAD_ID);
        assertThat(redis.pttl(KEY)).isBetween(1L, 300L); // a dead head delays the queue no longer than before
    }

    @Test
    void leave_afterAGrantItDidNotTake_passesTheKeyOnAndReturnsTheGrantsFence(RedisClient redis) {
        String second = "00000000000000c2";
        assertThat(acquire(redis, HOLDER, "", "new").get(0)).isEqualTo(1L);
        assertThat(acquire(redis, HEAD, HEAD_ID, "new").get(0)).isEqualTo(0L);
        assertThat(acquire(redis, "c".repeat(32), second, "new").get(0)).isEqualTo(0L);
        assertThat(release(redis, HOLDER)).isEqualTo(2L);
        String grant = redis.get(KEY);
        assertThat(grant).startsWith(HEAD_ID).endsWith("+"); // another waiter still queued
        assertThat(leave(redis, HEAD_ID)).isEqualTo(Long.parseLong(grant.substring(16, 32)));
        assertThat(redis.get(KEY)).isEqualTo("~" + second); // reserved for the next live waiter
        assertThat(acquire(redis, "c".repeat(32), second, "wait").get(0)).isEqualTo(1L);
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
