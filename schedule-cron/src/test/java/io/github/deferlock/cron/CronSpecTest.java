package io.github.deferlock.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.delay.ScheduleSpec;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class CronSpecTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    @Test
    void of_badExpression_iaeNamesIt() {
        assertThatThrownBy(() -> CronSpec.of("61 * * * *", PARIS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'61 * * * *'");
        assertThatThrownBy(() -> CronSpec.of("* * *", PARIS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'* * *'")
                .hasMessageContaining("3 fields");
        assertThatThrownBy(() -> CronSpec.of("0 9 * * FUNDAY", PARIS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FUNDAY");
    }

    @Test
    void of_badZone_iaeNamesIt() {
        assertThatThrownBy(() -> CronSpec.of("0 9 * * *", "Mars/Olympus"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Mars/Olympus'");
    }

    @Test
    void next_weekdaysInZone() {
        CronSpec s = CronSpec.of("0 9 * * MON-FRI", PARIS);
        // Friday 2026-11-27 09:00 Paris (UTC+1) is 08:00Z; then Monday 11-30
        assertThat(s.next(Instant.parse("2026-11-27T07:00:00Z"))).isEqualTo("2026-11-27T08:00:00Z");
        assertThat(s.next(Instant.parse("2026-11-27T08:00:00Z"))).isEqualTo("2026-11-30T08:00:00Z");
    }

    @Test
    void next_sixFieldsWithSeconds() {
        CronSpec s = CronSpec.of("*/10 * * * * *", ZoneId.of("UTC"));
        assertThat(s.next(Instant.parse("2026-11-27T07:00:03Z"))).isEqualTo("2026-11-27T07:00:10Z");
    }

    @Test
    void skippedHour_dailySlotFiresShiftedByTheGap() {
        // 2026-03-29 clocks go from 02:00 to 03:00 in Paris: 02:30 does not exist; it fires at 03:30 summer time
        CronSpec s = CronSpec.of("30 2 * * *", PARIS);
        List<Instant> slots = slots(s, Instant.parse("2026-03-27T12:00:00Z"), 4);
        assertThat(slots)
                .containsExactly(
                        Instant.parse("2026-03-28T01:30:00Z"), // 02:30+01:00
                        Instant.parse("2026-03-29T01:30:00Z"), // the gap: 03:30+02:00
                        Instant.parse("2026-03-30T00:30:00Z"), // 02:30+02:00
                        Instant.parse("2026-03-31T00:30:00Z"));
    }

    @Test
    void skippedHour_hourlySlotsNeitherLostNorDoubled() {
        CronSpec s = CronSpec.of("30 * * * *", PARIS);
        List<Instant> slots = slots(s, Instant.parse("2026-03-28T23:00:00Z"), 4);
        // 00:30+01, 01:30+01, (02:30 gap = 03:30+02, the same instant as the real 03:30), 04:30+02
        assertThat(slots)
                .containsExactly(
                        Instant.parse("2026-03-28T23:30:00Z"),
                        Instant.parse("2026-03-29T00:30:00Z"),
                        Instant.parse("2026-03-29T01:30:00Z"),
                        Instant.parse("2026-03-29T02:30:00Z"));
    }

    @Test
    void repeatedHour_dailySlotFiresOnceAtFirstOccurrence() {
        // 2026-10-25 clocks go from 03:00 back to 02:00 in Paris: 02:30 happens twice
        CronSpec s = CronSpec.of("30 2 * * *", PARIS);
        List<Instant> slots = slots(s, Instant.parse("2026-10-24T12:00:00Z"), 2);
        assertThat(slots)
                .containsExactly(
                        Instant.parse("2026-10-25T00:30:00Z"), // 02:30+02:00, the first one
                        Instant.parse("2026-10-26T01:30:00Z")); // 02:30+01:00 the next day
    }

    @Test
    void repeatedHour_hourlySlotFiresInBothOccurrences() {
        CronSpec s = CronSpec.of("30 * * * *", PARIS);
        List<Instant> slots = slots(s, Instant.parse("2026-10-24T23:00:00Z"), 4);
        assertThat(slots)
                .containsExactly(
                        Instant.parse("2026-10-24T23:30:00Z"), // 01:30+02
                        Instant.parse("2026-10-25T00:30:00Z"), // 02:30+02
                        Instant.parse("2026-10-25T01:30:00Z"), // 02:30+01
                        Instant.parse("2026-10-25T02:30:00Z")); // 03:30+01
    }

    @Test
    void storedText_readsBackThroughTheServiceLoader() {
        CronSpec s = CronSpec.of("0  9 * * MON-FRI", PARIS);
        assertThat(ScheduleSpec.stored(s)).isEqualTo("cron:0 9 * * MON-FRI|Europe/Paris");
        ScheduleSpec back = ScheduleSpec.parse(ScheduleSpec.stored(s));
        assertThat(back).isEqualTo(s);
        assertThat(back.next(Instant.parse("2026-11-27T07:00:00Z"))).isEqualTo("2026-11-27T08:00:00Z");
    }

    private static List<Instant> slots(ScheduleSpec s, Instant from, int n) {
        List<Instant> out = new ArrayList<>();
        Instant t = from;
        for (int i = 0; i < n; i++) {
            t = s.next(t);
            out.add(t);
        }
        return out;
    }
}
