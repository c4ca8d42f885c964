package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The event meters, fed by calling the listener as a queue and its workers do. */
final class QueueMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void events_areCountedPerQueue() {
        QueueMetrics metrics = QueueMetrics.builder().build();
        metrics.bindTo(registry);
        for (int i = 0; i < 5; i++) {
            metrics.onEnqueued("emails", "j" + i, Instant.EPOCH);
            metrics.onClaimed("emails", "j" + i, 1);
        }
        metrics.onEnqueued("sms", "s1", Instant.EPOCH);
        metrics.onHandled("emails", "j0", Duration.ofMillis(30), Duration.ofMillis(200));
        metrics.onHandled("emails", "j1", Duration.ofMillis(10), Duration.ZERO);
        metrics.onFailed("emails", "j2", 1, new RuntimeException(), true);
        metrics.onFailed("emails", "j3", 3, new RuntimeException(), false);
        metrics.onDeadLettered("emails", "j3", "boom");
        metrics.onClaimLost("emails", "j4");
        metrics.onGivenBack("emails", "j4");

        assertThat(count("deferlock.queue.enqueued", "emails")).isEqualTo(5);
        assertThat(count("deferlock.queue.enqueued", "sms")).isEqualTo(1);
        assertThat(count("deferlock.queue.claimed", "emails")).isEqualTo(5);
        var run = registry.get("deferlock.queue.run").tag("queue", "emails").timer();
        assertThat(run.count()).isEqualTo(2);
        assertThat(run.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(40);
        assertThat(registry.get("deferlock.queue.lateness")
                        .tag("queue", "emails")
                        .timer()
                        .max(TimeUnit.MILLISECONDS))
                .isEqualTo(200);
        assertThat(registry.get("deferlock.queue.failed")
                        .tag("queue", "emails")
                        .tag("retry", "true")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("deferlock.queue.failed")
                        .tag("queue", "emails")
                        .tag("retry", "false")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(count("deferlock.queue.dead.letters", "emails")).isEqualTo(1);
        assertThat(count("deferlock.queue.claims.lost", "emails")).isEqualTo(1);
        assertThat(count("deferlock.queue.given.back", "emails")).isEqualTo(1);
    }

    @Test
    void queuesPastTheLimit_shareOneTag() {
        QueueMetrics metrics = QueueMetrics.builder().maxQueues(3).build();
        metrics.bindTo(registry);
        for (int i = 0; i < 1000; i++) {
            metrics.onEnqueued("q" + i, "j", Instant.EPOCH);
        }
        assertThat(registry.find("deferlock.queue.enqueued").counters()).hasSize(4);
        assertThat(count("deferlock.queue.enqueued", QueueMetrics.OTHER_QUEUES)).isEqualTo(997);
    }

    @Test
    void eventsBeforeBinding_areNotRecorded_andLaterRegistriesGetTheMeters() {
        QueueMetrics metrics = QueueMetrics.builder().build();
        metrics.onEnqueued("emails", "early", Instant.EPOCH);
        metrics.bindTo(registry);
        metrics.onEnqueued("emails", "late", Instant.EPOCH);
        assertThat(count("deferlock.queue.enqueued", "emails")).isEqualTo(1);
    }

    @Test
    void settings_areCheckedAndSetOnce() {
        assertThatThrownBy(() -> QueueMetrics.builder().gaugeRefresh(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gaugeRefresh");
        assertThatThrownBy(() -> QueueMetrics.builder().maxQueues(2).maxQueues(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxQueues was already set to 2");
        assertThatThrownBy(() -> TimerOptions.DEFAULT.percentiles(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1.5");
    }

    private double count(String name, String queue) {
        return registry.get(name).tag("queue", queue).counter().count();
    }
}
