package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.lock.internal.Parking.OrphanState;
import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * orphan.lua against a real redis-server: parked work with no drainer record is found, adopted by one token
 * only (a resend gives the same answer), and a live drainer or an empty FIFO is left alone.
 */
@ExtendWith(RedisExtension.class)
final class OrphanScriptIT {
    private static final String KEY = "lock:{orphan}";

    private static Parking parking(RedisClient redis) {
        return new Parking(redis, KEY.getBytes(StandardCharsets.UTF_8), KEY);
    }

    @Test
    void nothingParked_isNeitherOrphanedNorAdopted(RedisClient redis) {
        Parking p = parking(redis);
        assertThat(p.orphanCheck()).isEqualTo(OrphanState.NOTHING_PARKED);
        assertThat(p.adoptOrphan("t1", 60_000)).isEqualTo(OrphanState.NOTHING_PARKED);
        assertThat(redis.exists(KEY + ":drainer"))
                .as("no drainer made for nothing")
                .isFalse();
    }

    @Test
    void liveDrainer_isLeftAlone(RedisClient redis) {
        Parking p = parking(redis);
        p.park("a", "pa", 10, "t1", 60_000);
        assertThat(p.orphanCheck()).isEqualTo(OrphanState.DRAINED);
        assertThat(p.adoptOrphan("t2", 60_000)).isEqualTo(OrphanState.DRAINED);
        assertThat(p.adoptOrphan("t1", 60_000)).as("the drainer's own token").isEqualTo(OrphanState.ADOPTED);
        assertThat(redis.get(KEY + ":drainer")).isEqualTo("t1");
    }

    @Test
    void lapsedDrainer_isOrphaned_andOneTokenAdoptsIt(RedisClient redis) {
        Parking p = parking(redis);
        p.park("a", "pa", 10, "t1", 60_000);
        p.park("b", "pb", 10, "t1", 60_000);
        redis.del(KEY + ":drainer"); // t1's lease ran out, and no job of t1 is left
        assertThat(p.orphanCheck()).isEqualTo(OrphanState.ORPHANED);
        assertThat(redis.exists(KEY + ":drainer")).as("a look changes nothing").isFalse();
        assertThat(p.adoptOrphan("t2", 60_000)).isEqualTo(OrphanState.ADOPTED);
        assertThat(p.adoptOrphan("t2", 60_000)).as("a resend").isEqualTo(OrphanState.ADOPTED);
        assertThat(p.adoptOrphan("t3", 60_000)).as("a second sweep's token").isEqualTo(OrphanState.DRAINED);
        assertThat(redis.get(KEY + ":drainer")).isEqualTo("t2");
        assertThat(redis.pttl(KEY + ":drainer")).isBetween(1L, 60_000L);
        assertThat(p.drainStep("t2", 60_000)).isEqualTo(new Parking.DrainStep("a", "pa", 0, 2, 0, "b"));
        assertThat(redis.lrange(KEY + ":parked", 0, -1))
                .as("adoption moves no item")
                .containsExactly("a", "b");
    }

    @Test
    void adoptOrphan_refusesAnEmptyToken_namingTheKey(RedisClient redis) {
        redis.set(KEY + ":drainer", "t1", SetParams.setParams().px(60_000));
        assertThatThrownBy(() -> parking(redis).adoptOrphan("", 60_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock:{orphan}");
    }
}
