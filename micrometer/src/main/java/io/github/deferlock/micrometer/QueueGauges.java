package io.github.deferlock.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.concurrent.TimeUnit;

/** The size gauges of one monitored queue, all read from one cached {@link QueueSnapshots}. */
final class QueueGauges {
    // the registry holds gauge targets weakly: this object and the map in QueueMetrics keep them alive
    private final QueueSnapshots snapshots;

    QueueGauges(MeterRegistry r, String queue, QueueSnapshots snapshots) {
        this.snapshots = snapshots;
        Tags tags = Tags.of("queue", queue);
        Gauge.builder("deferlock.queue.due", snapshots, s -> s.current().due())
                .description("Jobs waiting, scheduled ones included")
                .tags(tags)
                .register(r);
        Gauge.builder("deferlock.queue.in.flight", snapshots, s -> s.current().inFlight())
                .description("Jobs claimed and not settled")
                .tags(tags)
                .register(r);
        Gauge.builder("deferlock.queue.dead", snapshots, s -> s.current().dead())
                .description("Dead letters held")
                .tags(tags)
                .register(r);
        TimeGauge.builder("deferlock.queue.oldest.due.age", snapshots, TimeUnit.MILLISECONDS, s -> s.current()
                        .oldestDueAgeMillis())
                .description("How long the earliest due job has been due")
                .tags(tags)
                .register(r);
    }

    QueueSnapshots snapshots() {
        return snapshots;
    }
}
