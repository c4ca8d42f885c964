package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

final class SlotPlannerTest {
    private static final long MIN = 60_000;
    private static final long GRACE = MissedSlots.GRACE.toMillis();
    private static final ScheduleSpec EVERY_MINUTE = ScheduleSpec.fixedRate(Duration.ofMinutes(1));
    private static final long T = 1_800_000_000_000L; // a whole minute

    @Test
    void plan_slotJustDue_firesItAndMovesToTheNext() {
        SlotPlanner.Plan p = SlotPlanner.plan(EVERY_MINUTE, MissedSlots.skip(), T, T + 5, GRACE);
        assertThat(p.slots()).containsExactly(T);
        assertThat(p.nextMs()).isEqualTo(T + MIN);
    }

    @Test
    void plan_lateWithinGrace_firesEvenWithSkip() {
        ScheduleSpec everySecond = ScheduleSpec.fixedRate(Duration.ofSeconds(1));
        SlotPlanner.Plan p = SlotPlanner.plan(everySecond, MissedSlots.skip(), T, T + 2_500, GRACE);
        assertThat(p.slots()).containsExactly(T, T + 1000, T + 2000);
        assertThat(p.nextMs()).isEqualTo(T + 3000);
    }

    @Test
    void plan_missedWithFireOnce_firesTheLastMissedSlotOnce() {
        long now = T + 10 * MIN + 30_000; // slots T .. T+9m are missed (older than 1 min), T+10m is late
        SlotPlanner.Plan p = SlotPlanner.plan(EVERY_MINUTE, MissedSlots.fireOnce(), T, now, GRACE);
        assertThat(p.slots()).containsExactly(T + 9 * MIN, T + 10 * MIN);
        assertThat(p.nextMs()).isEqualTo(T + 11 * MIN);
    }

    @Test
    void plan_missedWithSkip_firesOnlyTheLateOne() {
        long now = T + 10 * MIN + 30_000;
        SlotPlanner.Plan p = SlotPlanner.plan(EVERY_MINUTE, MissedSlots.skip(), T, now, GRACE);
        assertThat(p.slots()).containsExactly(T + 10 * MIN);
        assertThat(p.nextMs()).isEqualTo(T + 11 * MIN);
    }

    @Test
    void plan_missedWithFireAll_firesTheEarliestMaxAndSkipsTheRest() {
        long now = T + 10 * MIN + 30_000;
        SlotPlanner.Plan p = SlotPlanner.plan(EVERY_MINUTE, MissedSlots.fireAll(3), T, now, GRACE);
        assertThat(p.slots()).containsExactly(T, T + MIN, T + 2 * MIN, T + 10 * MIN);
        assertThat(p.nextMs()).isEqualTo(T + 11 * MIN);

        SlotPlanner.Plan all = SlotPlanner.plan(EVERY_MINUTE, MissedSlots.fireAll(1000), T, now, GRACE);
        assertThat(all.slots()).hasSize(11);
    }

    @Test
    void plan_yearsOfMissedSlots_boundedWork() {
        ScheduleSpec everySecond = ScheduleSpec.fixedRate(Duration.ofSeconds(1));
        long now = T + Duration.ofDays(400).toMillis();
        SlotPlanner.Plan once = SlotPlanner.plan(everySecond, MissedSlots.fireOnce(), T, now, GRACE);
        // one missed slot (the walk stops after MAX_WALK), then the 61 late ones of the last minute
        assertThat(once.slots()).hasSize(1 + 61);
        assertThat(once.slots().get(0)).isEqualTo(T + (SlotPlanner.MAX_WALK - 1) * 1000L);
        assertThat(once.slots().get(1)).isEqualTo(now - GRACE);
        assertThat(once.nextMs()).isEqualTo(now + 1000);
        SlotPlanner.Plan skip = SlotPlanner.plan(everySecond, MissedSlots.skip(), T, now, GRACE);
        assertThat(skip.slots().get(0)).isEqualTo(now - GRACE);
    }

    @Test
    void plan_specWithoutMoreSlots_nextIsNone() {
        ScheduleSpec once = new ScheduleSpec() {
            @Override
            public String kind() {
                return "once";
            }

            @Override
            public String text() {
                return "";
            }

            @Override
            public Instant next(Instant after) {
                return after.toEpochMilli() < T ? Instant.ofEpochMilli(T) : null;
            }
        };
        SlotPlanner.Plan p = SlotPlanner.plan(once, MissedSlots.fireOnce(), T, T + 1, GRACE);
        assertThat(p.slots()).isEqualTo(List.of(T));
        assertThat(p.nextMs()).isEqualTo(-1);
    }

    @Test
    void fixedRate_slotsOnMultiplesOfThePeriod_andRefusesBadPeriods() {
        assertThat(EVERY_MINUTE.next(Instant.ofEpochMilli(T))).isEqualTo(Instant.ofEpochMilli(T + MIN));
        assertThat(EVERY_MINUTE.next(Instant.ofEpochMilli(T - 1))).isEqualTo(Instant.ofEpochMilli(T));
        ScheduleSpec quarterPast = ScheduleSpec.fixedRate(Duration.ofHours(1), Instant.parse("2026-01-01T00:15:00Z"));
        assertThat(quarterPast.next(Instant.parse("2026-11-27T10:20:00Z"))).isEqualTo("2026-11-27T11:15:00Z");
        assertThat(ScheduleSpec.parse(ScheduleSpec.stored(quarterPast))).isEqualTo(quarterPast);
        assertThat(ScheduleSpec.stored(EVERY_MINUTE)).isEqualTo("rate:PT1M");
        assertThatThrownBy(() -> ScheduleSpec.fixedRate(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("period");
        assertThatThrownBy(() -> ScheduleSpec.parse("cron:0 9 * * *|UTC"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deferlock-cron");
        assertThatThrownBy(() -> ScheduleSpec.parse("rate:soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'soon'");
    }
}
