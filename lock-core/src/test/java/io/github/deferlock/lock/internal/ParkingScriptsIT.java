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
 * Issue 27: the parked-work scripts (park.lua, drain.lua, pop.lua) and acquire.lua's yield to parked work, each
 * against a real redis-server: resends give the same answer and change nothing, only the head leaves the FIFO,
 * and a new message's acquisition is refused while work is parked — but a resent grant stays a grant.
 */
@ExtendWith(RedisExtension.class)
final class ParkingScriptsIT {
    private static final String KEY = "lock:{parked}";
    private static final String TOKEN = "c".repeat(32);

    private static List<byte[]> bytes(String... values) {
        List<byte[]> out = new ArrayList<>();
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<?> acquireYielding(RedisClient redis, String token) {
        return (List<?>) LockLua.ACQUIRE.run(
                redis,
                bytes(KEY, KEY + ":fence", KEY + ":waiters", KEY + ":waiter-deadlines", KEY + ":parked"),
                bytes(token, "30000", "8", "", "", "1000", KEY + ":released:", "0", "1"));
    }

    private static Parking parking(RedisClient redis) {
        return new Parking(redis, KEY.getBytes(StandardCharsets.UTF_8), KEY);
    }

    @Test
    void park_resentOrRedelivered_parksOnce_andTheFirstTokenStaysTheDrainer(RedisClient redis) {
        Parking p = parking(redis);
        assertThat(p.park("a", "{\"a\":1}", 10, "t1", 60_000))
                .isEqualTo(new Parking.ParkReply(Parking.Parked.PARKED, 1, true));
        assertThat(p.park("a", "{\"a\":1}", 10, "t1", 60_000)) // a resend
                .isEqualTo(new Parking.ParkReply(Parking.Parked.ALREADY, 1, true));
        assertThat(p.park("a", "{\"a\":1}", 10, "t2", 60_000)) // a redelivery from another caller
                .isEqualTo(new Parking.ParkReply(Parking.Parked.ALREADY, 1, false));
        assertThat(p.park("b", "{\"b\":1}", 10, "t3", 60_000))
                .isEqualTo(new Parking.ParkReply(Parking.Parked.PARKED, 2, false));
        assertThat(redis.lrange(KEY + ":parked", 0, -1)).containsExactly("a", "b");
        assertThat(redis.get(KEY + ":drainer")).isEqualTo("t1");
    }

    @Test
    void park_overTheCap_isRefused_andNothingChanges(RedisClient redis) {
        Parking p = parking(redis);
        p.park("a", "1", 2, "t1", 60_000);
        p.park("b", "2", 2, "t1", 60_000);
        assertThat(p.park("c", "3", 2, "t1", 60_000).parked()).isEqualTo(Parking.Parked.FULL);
        assertThat(redis.lrange(KEY + ":parked", 0, -1)).containsExactly("a", "b");
        assertThat(redis.hexists(KEY + ":parked-items", "c")).isFalse();
    }

    @Test
    void drainAndPop_onlyTheHeadLeaves_anotherTokenIsTurnedAway_andAnEmptyFifoEndsTheDrainer(RedisClient redis) {
        Parking p = parking(redis);
        assertThat(p.drainStep("t0", 60_000))
                .as("a token whose park has not run yet")
                .isSameAs(Parking.DrainStep.EMPTY_NO_DRAINER);
        p.park("a", "pa", 10, "t1", 60_000);
        p.park("b", "pb", 10, "t9", 60_000);
        assertThat(p.drainStep("t2", 60_000)).isSameAs(Parking.DrainStep.OTHER_DRAINER);
        assertThat(p.failed("a")).isEqualTo(1);
        assertThat(p.drainStep("t1", 60_000)).isEqualTo(new Parking.DrainStep("a", "pa", 1, 2, 0, "b"));
        assertThat(p.pop("b")).as("not the head").isFalse();
        assertThat(p.pop("a")).isTrue();
        assertThat(p.pop("a")).as("a resend").isFalse();
        assertThat(redis.hexists(KEY + ":parked-attempts", "a")).isFalse();
        assertThat(p.drainStep("t1", 60_000)).isEqualTo(new Parking.DrainStep("b", "pb", 0, 1, 0, null));
        assertThat(p.pop("b")).isTrue();
        assertThat(p.drainStep("t1", 60_000)).isSameAs(Parking.DrainStep.EMPTY);
        assertThat(redis.exists(KEY + ":drainer")).isFalse();
        assertThat(p.park("c", "pc", 10, "t5", 60_000).drainer())
                .as("the next park makes its caller the drainer")
                .isTrue();
    }

    @Test
    void next_popsTheHead_andRaisesTheFenceOnlyWhileTheKeyHoldsTheCallersUnmarkedToken(RedisClient redis) {
        Parking p = parking(redis);
        p.park("a", "pa", 10, "t1", 60_000);
        p.park("b", "pb", 10, "t1", 60_000);
        p.park("c", "pc", 10, "t1", 60_000);
        redis.set(KEY, "tok");
        redis.set(KEY + ":fence", "100");
        long now = System.currentTimeMillis() * 1_000L - 60_000_000L; // the server runs on this machine's clock

        Parking.DrainStep b = p.next("a", "t1", 60_000, "tok".getBytes(StandardCharsets.UTF_8));
        assertThat(b.id()).as("a left, b is the head").isEqualTo("b");
        assertThat(b.size()).isEqualTo(2);
        assertThat(b.after()).as("the id after the head").isEqualTo("c");
        assertThat(b.fence())
                .as("a counter below the server clock is raised to it first (tokens rise across data loss)")
                .isGreaterThanOrEqualTo(now);
        assertThat(Long.parseLong(redis.get(KEY + ":fence"))).isEqualTo(b.fence());
        assertThat(p.next("a", "t1", 60_000, "tok".getBytes(StandardCharsets.UTF_8))
                        .id())
                .as("a resend removes nothing more")
                .isEqualTo("b");

        redis.set(KEY, "tok+"); // a waiter of another process queued behind the hold
        Parking.DrainStep c = p.next("b", "t1", 60_000, "tok".getBytes(StandardCharsets.UTF_8));
        assertThat(c.id()).isEqualTo("c");
        assertThat(c.fence())
                .as("the key goes to the waiter through the release")
                .isZero();
        assertThat(p.next("c", "t1", 60_000, null)).isSameAs(Parking.DrainStep.EMPTY);
        assertThat(redis.exists(KEY + ":drainer")).isFalse();
    }

    @Test
    void drain_anExpiredDrainer_isTakenOver(RedisClient redis) {
        Parking p = parking(redis);
        p.park("a", "pa", 10, "dead", 1);
        redis.del(KEY + ":drainer"); // its lease ran out
        assertThat(p.drainStep("t2", 60_000).id()).isEqualTo("a");
        assertThat(redis.get(KEY + ":drainer")).isEqualTo("t2");
    }

    @Test
    void acquireYieldingToParkedWork_refusedWhileParked_butAResentGrantStaysAGrant(RedisClient redis) {
        List<?> granted = acquireYielding(redis, TOKEN);
        assertThat(granted.get(0)).as("nothing parked: granted").isEqualTo(1L);
        parking(redis).park("a", "pa", 10, "t1", 60_000); // someone parked behind the holder
        assertThat(acquireYielding(redis, TOKEN)).as("the resend").isEqualTo(granted);
        redis.del(KEY); // released
        assertThat(acquireYielding(redis, "d".repeat(32)))
                .as("free, but work is parked")
                .isEqualTo(List.of(0L, -3L));
        assertThat(redis.exists(KEY)).isFalse();
        parking(redis).pop("a");
        assertThat(acquireYielding(redis, "d".repeat(32)).get(0)).isEqualTo(1L);
    }
}
