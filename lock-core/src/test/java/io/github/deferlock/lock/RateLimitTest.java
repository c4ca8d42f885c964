package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class RateLimitTest {

    @Test
    void of_defaultBurstIsATwentiethOfTheRateAtLeastOne() {
        assertThat(RateLimit.of(200, Duration.ofSeconds(1)).burst()).isEqualTo(10);
        assertThat(RateLimit.of(19, Duration.ofSeconds(1)).burst()).isEqualTo(1);
        assertThat(RateLimit.of(1, Duration.ofMinutes(1)).withBurst(1).burst()).isEqualTo(1);
        assertThat(RateLimit.of(200, Duration.ofSeconds(1))).hasToString("200 per 1 s (burst 10)");
    }

    @Test
    void of_badRate_refusedNamingTheValue() {
        assertThatThrownBy(() -> RateLimit.of(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate must be within [1, 1000000], not 0");
        assertThatThrownBy(() -> RateLimit.of(-5, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not -5");
        assertThatThrownBy(() -> RateLimit.of(1_000_001, Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate must be within [1, 1000000], not 1000001");
        assertThatThrownBy(() -> RateLimit.of(5_000, Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate must be at most one start per microsecond of the interval, not 5000 per 1 ms");
    }

    @Test
    void of_badInterval_refusedNamingTheValue() {
        assertThatThrownBy(() -> RateLimit.of(10, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be within [1 ms, 366 days], not 0 s");
        assertThatThrownBy(() -> RateLimit.of(10, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be within [1 ms, 366 days], not -1 s");
        assertThatThrownBy(() -> RateLimit.of(10, Duration.ofDays(367)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be within [1 ms, 366 days], not 367 days");
        assertThatThrownBy(() -> RateLimit.of(10, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("interval cannot be null");
    }

    @Test
    void withBurst_outsideOneToRate_refusedNamingTheValue() {
        RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1));
        assertThatThrownBy(() -> limit.withBurst(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("burst must be within [1, 10], not 0");
        assertThatThrownBy(() -> limit.withBurst(11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("burst must be within [1, 10], not 11");
    }
}
