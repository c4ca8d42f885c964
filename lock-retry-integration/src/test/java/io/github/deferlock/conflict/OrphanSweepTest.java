package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.lock.internal.Parking.OrphanState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link OrphanSweep} on a fake recovery: what it forgets, keeps and adopts, its bound, and Redis failures. */
final class OrphanSweepTest {

    private final Map<String, OrphanState> states = new ConcurrentHashMap<>();
    private final List<String> looked = new CopyOnWriteArrayList<>();
    private final List<String> adopted = new CopyOnWriteArrayList<>();
    private Runnable duringLook = () -> {};

    private final OrphanSweep.Recovery<String> fake = new OrphanSweep.Recovery<>() {
        @Override
        public OrphanState look(String key) {
            looked.add(key);
            duringLook.run();
            return states.getOrDefault(key, OrphanState.NOTHING_PARKED);
        }

        @Override
        public boolean adopt(String key) {
            adopted.add(key);
            states.put(key, OrphanState.DRAINED);
            return true;
        }
    };

    /** A period of an hour: the sweep's own thread never runs in these tests; they call sweep(). */
    private final OrphanSweep<String> sweep = new OrphanSweep<>("q", 3, 3_600_000, fake);

    @AfterEach
    void tearDown() {
        sweep.close();
    }

    @Test
    void sweep_forgetsEmptyKeys_keepsDrainedOnes_andAdoptsOrphansOnce() {
        states.put("drained", OrphanState.DRAINED);
        states.put("orphan", OrphanState.ORPHANED);
        for (String k : List.of("empty", "drained", "orphan")) {
            sweep.remember(k, k);
        }
        assertThat(sweep.sweep()).isEqualTo(1);
        assertThat(adopted).containsExactly("orphan");
        assertThat(sweep.remembers("empty")).isFalse();
        assertThat(sweep.remembers("drained")).isTrue();
        assertThat(sweep.remembers("orphan")).as("kept until nothing is parked").isTrue();
        assertThat(sweep.sweep()).as("the adopted key has a drainer now").isZero();
        assertThat(adopted).containsExactly("orphan");
    }

    @Test
    void remember_isBounded_theLeastRecentlyRememberedKeyGoesFirst() {
        sweep.remember("a", "a");
        sweep.remember("b", "b");
        sweep.remember("c", "c");
        sweep.remember("a", "a"); // a is the most recent now
        sweep.remember("d", "d");
        assertThat(sweep.size()).isEqualTo(3);
        assertThat(sweep.remembers("b")).isFalse();
        assertThat(sweep.remembers("a")).isTrue();
    }

    @Test
    void aKeyRememberedAgainDuringItsLook_isNotForgotten() {
        sweep.remember("k", "k");
        duringLook = () -> sweep.remember("k", "k"); // parked again while the sweep looked: the look is stale
        sweep.sweep();
        assertThat(sweep.remembers("k")).isTrue();
        duringLook = () -> {};
        sweep.sweep();
        assertThat(sweep.remembers("k")).isFalse();
    }

    @Test
    void aRedisFailure_endsTheSweep_andKeepsTheKeys() {
        states.put("a", OrphanState.ORPHANED);
        sweep.remember("a", "a");
        sweep.remember("b", "b");
        duringLook = () -> {
            if (looked.size() == 1) {
                throw new IllegalStateException("Redis is away");
            }
        };
        assertThat(sweep.sweep()).isZero();
        assertThat(looked).containsExactly("a");
        assertThat(sweep.size()).isEqualTo(2);
        assertThat(sweep.sweep()).as("the next sweep goes on").isEqualTo(1);
        assertThat(sweep.remembers("b")).isFalse();
    }

    @Test
    void close_forgetsEverything_andRemembersNoMore() {
        sweep.remember("a", "a");
        sweep.close();
        sweep.remember("b", "b");
        assertThat(sweep.size()).isZero();
        assertThat(sweep.sweep()).isZero();
    }
}
