package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class FallbackPollTest {

    @Test
    void next_doublesUpToTheBound_andNeverPastTheTimeLeft() {
        FallbackPoll poll = new FallbackPoll(10, 50);

        assertThat(poll.next(1_000)).isEqualTo(10);
        assertThat(poll.next(1_000)).isEqualTo(20);
        assertThat(poll.next(1_000)).isEqualTo(40);
        assertThat(poll.next(1_000)).isEqualTo(50);
        assertThat(poll.next(1_000)).isEqualTo(50);
        assertThat(poll.next(7)).isEqualTo(7);
    }

    @Test
    void badBounds_areRefused() {
        assertThatThrownBy(() -> new FallbackPoll(0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("firstNanos must be at least 1, not 0");
        assertThatThrownBy(() -> new FallbackPoll(10, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxNanos must be at least 10, not 5");
    }
}
