package io.github.deferlock.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.deferlock.delay.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one builder vocabulary: defaults, set-once settings and the {@code Require} wording. */
final class ConsumerBuilderTest {
    interface FakeListener extends ConsumerListener {}

    /** An adapter's builder with no settings of its own; the handler is never called. */
    private static final class FakeBuilder extends ConsumerBuilder<String, FakeListener, FakeBuilder> {
        static final FakeListener NONE = new FakeListener() {};

        FakeBuilder() {
            super(String.class, null, FakeHandlers.unused(), NONE);
        }
    }

    @Test
    void defaults() {
        ConsumerSettings<String, FakeListener> s = new FakeBuilder().settings();
        assertThat(s.concurrency()).isEqualTo(4);
        assertThat(s.maxAttempts()).isEqualTo(5);
        assertThat(s.virtualThreads()).isFalse();
        assertThat(s.retryBackoff()).isEqualTo(ConsumerBuilder.DEFAULT_RETRY_BACKOFF);
        assertThat(s.listener()).isSameAs(FakeBuilder.NONE);
    }

    @Test
    void eachSetting_isSetOnce_andBadValuesAreNamed() {
        FakeBuilder b = new FakeBuilder().maxAttempts(3).retryBackoff(Backoff.fixed(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> b.maxAttempts(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("maxAttempts was already set to 3");
        assertThatThrownBy(() -> b.concurrency(1_001))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency")
                .hasMessageContaining("1001");
        assertThatThrownBy(() -> new FakeBuilder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> b.listener(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThat(b.settings().maxAttempts()).isEqualTo(3);
    }

    @Test
    void orderKey_isTheHandlersLockKeyByDefault_orNoneWithAnyOrder() {
        ConsumerSettings<String, FakeListener> byDefault = new FakeBuilder().settings();
        assertThat(byDefault.orderKey()).isNotNull();
        assertThat(byDefault.laneOf("a1"))
                .as("the handler's key function is m -> m")
                .isEqualTo("a1".hashCode());
        assertThat(new FakeBuilder().anyOrder().settings().orderKey()).isNull();
        assertThatThrownBy(() -> new FakeBuilder().anyOrder().orderKey(m -> m))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("anyOrder");
        assertThatThrownBy(() -> new FakeBuilder().orderKey(m -> m).anyOrder())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orderKey");
    }

    @Test
    void orderKey_isSetOnce_andGivesTheLaneOfEachMessage() {
        FakeBuilder b = new FakeBuilder().orderKey(m -> m.substring(0, 1));
        assertThatThrownBy(() -> b.orderKey(m -> m))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orderKey was already set");
        ConsumerSettings<String, FakeListener> s = b.settings();
        assertThat(s.laneOf("a1")).isEqualTo(s.laneOf("a2")).isEqualTo("a".hashCode());
        FakeBuilder nulls = new FakeBuilder().orderKey(m -> null);
        assertThatThrownBy(() -> nulls.settings().laneOf("x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("orderKey");
    }

    @Test
    void virtualThreads_beforeJava21_areRefusedByTheBuild() {
        assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads");
        FakeBuilder b = new FakeBuilder().virtualThreads(true);
        assertThatThrownBy(b::settings)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Java 21");
    }
}
