package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class DurationsTest {

    @Test
    void format_largestExactUnit() {
        assertThat(Durations.format(Duration.ofDays(366))).isEqualTo("366 days");
        assertThat(Durations.format(Duration.ofHours(8784))).isEqualTo("366 days");
        assertThat(Durations.format(Duration.ofDays(1))).isEqualTo("1 day");
        assertThat(Durations.format(Duration.ofHours(25))).isEqualTo("25 h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90 min");
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30 s");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1,500 ms");
        assertThat(Durations.format(Duration.ofNanos(250_000))).isEqualTo("250 µs");
        assertThat(Durations.format(Duration.ofNanos(7))).isEqualTo("7 ns");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0 s");
    }

    @Test
    void format_negativeAndHuge() {
        assertThat(Durations.format(Duration.ofMillis(-1))).isEqualTo("-1 ms");
        assertThat(Durations.format(Duration.ofHours(87_600_000))).isEqualTo("3,650,000 days");
        assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo("9,223,372,036,854,775,807 s");
        assertThat(Durations.format(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo("-9,223,372,036,854,775,808 s");
    }

    @Test
    void describe_durationsFormattedOtherValuesAsText() {
        assertThat(Durations.describe(Duration.ofSeconds(5))).isEqualTo("5 s");
        assertThat(Durations.describe(4)).isEqualTo("4");
    }
}
