package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code deferlock} actuator endpoint ({@code /actuator/deferlock}): every queue this instance uses, with
 * its sizes, dead letters, oldest due age and whether this instance runs a worker for it. Expose it with {@code
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
     * @param worker whether this instance runs a worker for it
     */
    public record QueueDescriptor(long due, long inFlight, long dead, long oldestDueAgeMillis, boolean worker) {}

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
            out.put(
                    q.name(),
                    new QueueDescriptor(
                            q.size(JobState.DUE),
                            q.size(JobState.IN_FLIGHT),
                            q.size(JobState.DEAD),
                            q.oldestDueAge().toMillis(),
                            withWorker.contains(q.name())));
        }
        return Map.of("queues", out);
    }
}
