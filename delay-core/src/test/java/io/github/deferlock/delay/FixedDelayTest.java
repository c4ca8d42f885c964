package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

final class FixedDelayTest {

    @Test
    void fixedDelay_outOfBounds_refusedNamingTheValueAndTheLimit() {
        assertThatThrownBy(() -> ScheduleSpec.fixedDelay(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be within [1 s, 366 days], not 999 ms");
        assertThatThrownBy(() -> ScheduleSpec.fixedDelay(Duration.ofDays(367)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be within [1 s, 366 days], not 367 days");
        assertThatThrownBy(() -> ScheduleSpec.fixedDelay(Duration.ofSeconds(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("366 days");
        assertThatThrownBy(() -> ScheduleSpec.fixedDelay(Duration.ofNanos(1_000_000_001)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> ScheduleSpec.fixedDelay(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("delay");
        assertThatThrownBy(() -> ScheduleSpec.parse("delay:soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'soon'");
    }

    @Test
    void fixedDelay_storedAndReadBack_firstFireIsTheDelayAfterTheUpsert() {
        ScheduleSpec spec = ScheduleSpec.fixedDelay(Duration.ofMinutes(10));
        assertThat(ScheduleSpec.stored(spec)).isEqualTo("delay:PT10M");
        assertThat(ScheduleSpec.parse("delay:PT10M")).isEqualTo(spec);
        assertThat(spec.next(Instant.parse("2026-01-01T00:00:00Z"))).isEqualTo(Instant.parse("2026-01-01T00:10:00Z"));
        assertThat(ScheduleSpec.fixedDelay(Duration.ofSeconds(1))).isNotNull();
        assertThat(ScheduleSpec.fixedDelay(DelayQueue.MAX_DELAY)).isNotNull();
    }
}
