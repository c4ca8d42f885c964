package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RequireTest {

    @Test
    void sameRuleSameWording() {
        assertThatThrownBy(() -> Require.atLeast("replicas", 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicas must be at least 1, not 0");
        assertThatThrownBy(() -> Require.within("concurrency", 0, 1, 1000))
                .hasMessage("concurrency must be within [1, 1000], not 0");
        assertThatThrownBy(() -> Require.within("concurrency", 1001, 1, 1000))
                .hasMessage("concurrency must be within [1, 1000], not 1001");
        assertThatThrownBy(() -> Require.within("jitter", Double.NaN, 0, 1))
                .hasMessage("jitter must be within [0.0, 1.0], not NaN");
        assertThatThrownBy(() -> Require.positive("lease", Duration.ZERO))
                .hasMessage("lease must be positive, not 0 s");
        assertThatThrownBy(() -> Require.notNegative("delay", Duration.ofSeconds(-1)))
                .hasMessage("delay cannot be negative, not -1 s");
        assertThatThrownBy(() -> Require.within("ackDelay", Duration.ofHours(2), Duration.ZERO, Duration.ofHours(1)))
                .hasMessage("ackDelay must be within [0 s, 1 h], not 2 h");
        assertThatThrownBy(() -> Require.notEmpty("stream", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stream cannot be empty");
        assertThatThrownBy(() -> Require.notNull("handler", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("handler cannot be null");
    }

    @Test
    void setOnceRefusesASecondValueAndNamesTheFirst() {
        Integer first = Require.setOnce("concurrency", null, 4);
        assertThat(first).isEqualTo(4);
        assertThatThrownBy(() -> Require.setOnce("concurrency", first, 8))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("concurrency was already set to 4");
        assertThatThrownBy(() -> Require.setOnce("ackDelay", Duration.ofMillis(5), Duration.ofMillis(8)))
                .hasMessage("ackDelay was already set to 5 ms");
    }

    @Test
    void durationLimits_writtenAsPeopleWriteThem_issue29() {
        assertThatThrownBy(
                        () -> Require.within("delay", Duration.ofDays(3_650_000), Duration.ZERO, Duration.ofDays(366)))
                .hasMessage("delay must be within [0 s, 366 days], not 3,650,000 days");
        assertThatThrownBy(() ->
                        Require.within("visibilityTimeout", Duration.ZERO, Duration.ofMillis(1), Duration.ofDays(366)))
                .hasMessage("visibilityTimeout must be within [1 ms, 366 days], not 0 s");
    }

    @Test
    void valuesInsideTheRangePassThrough() {
        assertThat(Require.within("n", 1, 1, 1)).isEqualTo(1);
        assertThat(Require.atLeast("n", 5L, 1L)).isEqualTo(5L);
        assertThat(Require.orDefault(null, "x")).isEqualTo("x");
        assertThat(Require.orDefault("y", "x")).isEqualTo("y");
    }
}
