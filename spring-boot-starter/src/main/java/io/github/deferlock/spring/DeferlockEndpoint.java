package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code deferlock} actuator endpoint ({@code /actuator/deferlock}): every queue this instance uses, with
 * its sizes, dead letters, oldest due age, counters and whether this instance runs a worker for it (one script
 * call per queue: {@link DelayQueue#stats()}). Expose it with {@code
 * management.endpoints.web.exposure.include=deferlock}.
 */
@Endpoint(id = "deferlock")
public class DeferlockEndpoint {

    /**
     * One queue.
     *
     * @param due jobs waiting, scheduled ones included
     * @param inFlight jobs claimed and not settled
     * @param dead dead letters held
     * @param oldestDueAgeMillis how long the earliest due job has been due
     * @param enqueued jobs ever stored, by any client ({@link QueueStats#enqueued()})
     * @param acked jobs ever acked, by any worker ({@link QueueStats#acked()})
     * @param deadLettered jobs ever moved to the dead letters ({@link QueueStats#deadLettered()})
     * @param worker whether this instance runs a worker for it
     */
    public record QueueDescriptor(
            long due,
            long inFlight,
            long dead,
            long oldestDueAgeMillis,
            long enqueued,
            long acked,
            long deadLettered,
            boolean worker) {}

    private final DelayQueues queues;
    private final Deferrals deferrals;
    private final DeferlockWorkers workers;

    /** An endpoint over these beans. */
    public DeferlockEndpoint(DelayQueues queues, Deferrals deferrals, DeferlockWorkers workers) {
        this.queues = queues;
        this.deferrals = deferrals;
        this.workers = workers;
    }

    /** The queues by name. */
    @ReadOperation
    public Map<String, Object> queues() {
        List<DelayQueue<?>> all = new ArrayList<>(queues.all());
        all.add(deferrals.queue());
        List<String> withWorker = workers.workerQueues();
        Map<String, QueueDescriptor> out = new LinkedHashMap<>();
        for (DelayQueue<?> q : all) {
            QueueStats s = q.stats();
            out.put(
                    q.name(),
                    new QueueDescriptor(
                            s.waiting(),
                            s.inFlight(),
                            s.dead(),
                            s.oldestDueAge().toMillis(),
                            s.enqueued(),
                            s.acked(),
                            s.deadLettered(),
                            withWorker.contains(q.name())));
        }
        return Map.of("queues", out);
    }
}
