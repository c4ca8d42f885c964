package io.github.deferlock.micrometer;

import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.redis.internal.Require;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Carries trace context through delay-queue jobs with the Micrometer Observation API, so the OpenTelemetry and
 * Brave bridges both work. At enqueue, {@link #headers(String)} runs a {@code deferlock.job.enqueue} sender
 * observation (a child of the current one) whose tracing handler writes the propagation fields, W3C {@code
 * traceparent} with the OpenTelemetry bridge, into the job's headers. Each run of the job is a {@code
 * deferlock.job.run} receiver observation that continues that trace ({@link #handler}): the first run, its
 * retries and a deferred job's later runs are all children of the enqueue span, because the headers stay with
 * the job.
 *
 * <pre>{@code
 * JobObservations observations = new JobObservations(observationRegistry);
 * DelayQueue<Email> emails = DelayQueue.builder(redis, "emails", Email.class)
 *         .headers(observations.headers("emails"))
 *         .build();
 * DelayQueueWorker.builder(emails, observations.handler("emails", job -> send(job.payload()))).build().start();
 * }</pre>
 *
 * <p>With no tracing handler registered the observations are no-ops and the headers stay empty. Threadsafe.
 */
public final class JobObservations {

    /** The name of the observation around an enqueue. */
    public static final String ENQUEUE = "deferlock.job.enqueue";

    /** The name of the observation around one run of a job. */
    public static final String RUN = "deferlock.job.run";

    private final ObservationRegistry registry;

    /** Observations on {@code registry}. */
    public JobObservations(ObservationRegistry registry) {
        this.registry = Require.notNull("registry", registry);
    }

    /**
     * A {@code DelayQueue.Builder.headers} supplier for queue {@code queue}: the propagation fields of a new
     * {@code deferlock.job.enqueue} observation, child of the current one (empty when nothing traces).
     */
    public Supplier<Map<String, String>> headers(String queue) {
        Require.notNull("queue", queue);
        return () -> {
            Map<String, String> carrier = new HashMap<>();
            SenderContext<Map<String, String>> context = new SenderContext<>(Map::put);
            context.setCarrier(carrier);
            context.setRemoteServiceName("redis");
            Observation.createNotStarted(ENQUEUE, () -> context, registry)
                    .contextualName("enqueue " + queue)
                    .lowCardinalityKeyValue("queue", queue)
                    .observe(() -> {});
            return carrier;
        };
    }

    /**
     * {@code handler} run inside a {@code deferlock.job.run} observation that continues the trace in the job's
     * headers; a handler's exception is recorded on it and passes through.
     */
    public <T> JobHandler<T> handler(String queue, JobHandler<T> handler) {
        Require.notNull("queue", queue);
        Require.notNull("handler", handler);
        return job -> {
            ReceiverContext<Job<T>> context =
                    new ReceiverContext<>((j, key) -> j.headers().get(key));
            context.setCarrier(job);
            context.setRemoteServiceName("redis");
            Observation.createNotStarted(RUN, () -> context, registry)
                    .contextualName("run " + queue)
                    .lowCardinalityKeyValue("queue", queue)
                    .lowCardinalityKeyValue("retry", String.valueOf(job.attempts() > 1))
                    .observeChecked(() -> handler.handle(job));
        };
    }
}
