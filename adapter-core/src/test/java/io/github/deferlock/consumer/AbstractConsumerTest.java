package io.github.deferlock.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lifecycle every adapter shares, on a fake broker binding that records what the core asked of it. */
final class AbstractConsumerTest {

    private static final class FakeBinding extends AbstractConsumer<FakeBinding> {
        final List<String> calls = new ArrayList<>();
        boolean drains = true;
        boolean failStart;

        FakeBinding() {
            super("consumer of queue 'q'");
        }

        @Override
        protected void doStart() {
            calls.add("start running=" + isRunning());
            if (failStart) {
                throw new IllegalStateException("broker down");
            }
        }

        @Override
        protected boolean doClose(long deadlineNanos) {
            calls.add("close started=" + wasStarted() + " running=" + isRunning());
            return drains;
        }
    }

    @Test
    void startOnce_closeOnce_andASecondCloseReturnsWhatTheFirstReturned() {
        FakeBinding c = new FakeBinding();
        c.drains = false;
        assertThat(c.start()).isSameAs(c);
        assertThat(c.isRunning()).isTrue();
        assertThatThrownBy(c::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("consumer of queue 'q' was already started or closed");
        assertThat(c.close(Duration.ofSeconds(1))).isFalse();
        assertThat(c.close(Duration.ofSeconds(1))).isFalse();
        c.close();
        assertThat(c.isRunning()).isFalse();
        assertThat(c.calls).containsExactly("start running=true", "close started=true running=false");
    }

    @Test
    void aFailedStart_leavesItNotRunning_andCloseStillRuns() {
        FakeBinding c = new FakeBinding();
        c.failStart = true;
        assertThatThrownBy(c::start).hasMessage("broker down");
        assertThat(c.isRunning()).isFalse();
        assertThat(c.close(Duration.ZERO)).isTrue();
        assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeWithoutStart_tellsTheBinding_andANegativeTimeoutIsRefused() {
        FakeBinding c = new FakeBinding();
        assertThatThrownBy(() -> c.close(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThat(c.close(Duration.ZERO)).isTrue();
        assertThat(c.calls).containsExactly("close started=false running=false");
    }
}
