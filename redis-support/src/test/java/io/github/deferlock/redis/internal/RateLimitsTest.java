package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class RateLimitsTest {

    @Test
    void emissionMicrosArg_isTheIntervalPerStartToAThousandthOfAMicrosecond() {
        assertThat(text(RateLimits.emissionMicrosArg(200, Duration.ofSeconds(1))))
                .isEqualTo("5000.000");
        assertThat(text(RateLimits.emissionMicrosArg(3, Duration.ofSeconds(1)))).isEqualTo("333333.333");
        assertThat(text(RateLimits.emissionMicrosArg(1_000_000, Duration.ofSeconds(1))))
                .isEqualTo("1.000");
        assertThat(text(RateLimits.emissionMicrosArg(1, Duration.ofDays(366)))).isEqualTo("31622400000000.000");
    }

    @Test
    void check_boundsAreInclusive_andTheMessagesNameTheValue() {
        RateLimits.check(1, Duration.ofMillis(1), 1);
        RateLimits.check(1_000_000, Duration.ofSeconds(1), 1_000_000);
        RateLimits.check(1, Duration.ofDays(366), 1);
        assertThatThrownBy(() -> RateLimits.check(1_001, Duration.ofMillis(1), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate must be at most one start per microsecond of the interval, not 1001 per 1 ms");
        assertThatThrownBy(() -> RateLimits.check(10, Duration.ofSeconds(1), 0))
                .hasMessage("burst must be within [1, 10], not 0");
        assertThat(RateLimits.defaultBurst(1)).isEqualTo(1);
        assertThat(RateLimits.defaultBurst(100)).isEqualTo(5);
        assertThat(RateLimits.describe(100, Duration.ofMinutes(1), 5)).isEqualTo("100 per 1 min (burst 5)");
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }
}
