package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class BackoffTest {

    @Test
    void fixed_sameDelayEveryAttempt() {
        Backoff b = Backoff.fixed(Duration.ofSeconds(3));
        assertThat(b.delay(1)).isEqualTo(Duration.ofSeconds(3));
        assertThat(b.delay(50)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void exponential_growsByFactorUpToMax() {
        Backoff b = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0);
        assertThat(b.delay(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(b.delay(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(b.delay(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(b.delay(5)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.delay(10_000)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void schedule_seedJobPoolScheduleWithLastStepRepeating() {
        Backoff b = Backoff.schedule(
                Duration.ofMinutes(1),
                Duration.ofMinutes(5),
                Duration.ofMinutes(10),
                Duration.ofMinutes(30),
                Duration.ofHours(1));
        assertThat(b.delay(1)).isEqualTo(Duration.ofMinutes(1));
        assertThat(b.delay(2)).isEqualTo(Duration.ofMinutes(5));
        assertThat(b.delay(3)).isEqualTo(Duration.ofMinutes(10));
        assertThat(b.delay(4)).isEqualTo(Duration.ofMinutes(30));
        assertThat(b.delay(5)).isEqualTo(Duration.ofHours(1));
        assertThat(b.delay(9)).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void withJitter_staysWithinBoundsAndVaries() {
        Backoff b = Backoff.fixed(Duration.ofSeconds(10)).withJitter(0.2);
        SplittableRandom random = new SplittableRandom(42);
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 1000; i++) {
            long ms = b.delay(1, random).toMillis();
            min = Math.min(min, ms);
            max = Math.max(max, ms);
        }
        assertThat(min).isBetween(8_000L, 8_200L);
        assertThat(max).isBetween(11_800L, 12_000L);
    }

    @Test
    void withJitter_returnsACopy() {
        Backoff plain = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1), 2.0);
        Backoff jittered = plain.withJitter(0.5);
        assertThat(plain.jitter()).isZero();
        assertThat(jittered.jitter()).isEqualTo(0.5);
        assertThat(jittered).isNotEqualTo(plain).isEqualTo(plain.withJitter(0.5));
        assertThat(jittered.toString()).contains("exponential").contains("withJitter(0.5)");
    }

    @Test
    void factories_rejectBadArguments() {
        assertThatThrownBy(() -> Backoff.fixed(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Backoff.fixed(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("delay cannot be null");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shorter than initial");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(2), 0.5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(Backoff::schedule).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Backoff.fixed(Duration.ZERO).withJitter(1.5))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Backoff.fixed(Duration.ZERO).delay(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
