package io.github.deferlock.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.concurrent.TimeUnit;

/**
 * The size gauges and the queue-wide counters of one monitored queue, all read from one cached {@link
 * QueueSnapshots}.
 */
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
        Gauge.builder("deferlock.queue.paused", snapshots, s -> s.current().paused())
                .description("1 while the queue is paused (its workers claim nothing), else 0")
                .tags(tags)
                .register(r);
        // the queue's own counters in Redis: every client of the queue counted, the same value on every instance
        FunctionCounter.builder("deferlock.queue.total.enqueued", snapshots, s -> s.current()
                        .enqueued())
                .description("Jobs stored by any client of the queue (its counter in Redis)")
                .tags(tags)
                .register(r);
        FunctionCounter.builder("deferlock.queue.total.acked", snapshots, s -> s.current()
                        .acked())
                .description("Jobs acked by any worker of the queue (its counter in Redis)")
                .tags(tags)
                .register(r);
        FunctionCounter.builder("deferlock.queue.total.dead.lettered", snapshots, s -> s.current()
                        .deadLettered())
                .description("Jobs moved to the dead letters by any client of the queue (its counter in Redis)")
                .tags(tags)
                .register(r);
    }

    QueueSnapshots snapshots() {
        return snapshots;
    }
}
