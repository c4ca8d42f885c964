package io.github.deferlock.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class LifecycleTest {
    @Test
    void secondClose_returnsWhatTheFirstReturned() {
        Lifecycle l = new Lifecycle("consumer of queue 'q'");
        l.start();
        assertThat(l.beginClose()).isNull();
        assertThat(l.closed(false)).isFalse();
        assertThat(l.beginClose()).isFalse();
    }

    @Test
    void start_twiceOrAfterClose_isRefused() {
        Lifecycle l = new Lifecycle("consumer of queue 'q'");
        l.start();
        assertThatThrownBy(l::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("consumer of queue 'q' was already started or closed");
        Lifecycle closed = new Lifecycle("consumer of queue 'r'");
        closed.beginClose();
        closed.closed(true);
        assertThatThrownBy(closed::start).isInstanceOf(IllegalStateException.class);
    }
}
