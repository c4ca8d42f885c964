package io.github.deferlock.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/** The event meters of one queue tag. */
final class QueueMeters {
    final Counter enqueued;
    final Counter claimed;
    final Timer run;
    final Timer lateness;
    final Counter failedRetried;
    final Counter failedFinal;
    final Counter deadLetters;
    final Counter claimsLost;
    final Counter givenBack;

    QueueMeters(MeterRegistry r, String queue, TimerOptions timers) {
        Tags tags = Tags.of("queue", queue);
        enqueued = counter(r, "deferlock.queue.enqueued", "Jobs stored", tags);
        claimed = counter(r, "deferlock.queue.claimed", "Jobs claimed by a worker, each attempt", tags);
        run = timers.apply(Timer.builder("deferlock.queue.run")
                        .description("Handler runs that returned normally, by run time")
                        .tags(tags))
                .register(r);
        lateness = timers.apply(Timer.builder("deferlock.queue.lateness")
                        .description("Handler runs, by how long after the due time they started")
                        .tags(tags))
                .register(r);
        failedRetried = counter(r, "deferlock.queue.failed", "Handler failures", tags.and("retry", "true"));
        failedFinal = counter(r, "deferlock.queue.failed", "Handler failures", tags.and("retry", "false"));
        deadLetters = counter(r, "deferlock.queue.dead.letters", "Jobs moved to the dead letters", tags);
        claimsLost = counter(r, "deferlock.queue.claims.lost", "Running jobs whose claim was lost", tags);
        givenBack = counter(r, "deferlock.queue.given.back", "Claimed jobs given back unrun", tags);
    }

    private static Counter counter(MeterRegistry r, String name, String description, Tags tags) {
        return Counter.builder(name).description(description).tags(tags).register(r);
    }
}
