package io.github.deferlock.micrometer;

import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.redis.internal.Require;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Carries trace context through delay-queue jobs with the Micrometer Observation API, so the OpenTelemetry and
 * Brave bridges both work. At enqueue, {@link #headers(String)} runs a {@code deferlock.job.enqueue} sender
 * observation (a child of the current one) whose tracing handler writes the propagation fields, W3C {@code
 * traceparent} with the OpenTelemetry bridge, into the job's headers. Each run of the job is a {@code
 * deferlock.job.run} receiver observation ({@link JobRunContext}) that continues that trace ({@link
 * #handler}); the headers stay with the job through delays, retries and deferrals. With Micrometer Tracing's
 * generic receiver handler every run is a child of the enqueue span. With {@link JobRunTracingHandler}
 * registered (it needs {@code micrometer-tracing}) only the first run is a child; a retry and a deferred message
 * deferred again are new spans with a link to the enqueue span, as the OpenTelemetry messaging conventions
 * recommend for "process" spans.
 *
 * <p>A DEFER keeps the original message's trace: give the deferral queue {@code
 * Deferrals.builder(...).queueHeaders(observations.headers("deferred"))}, run the handler that defers inside an
 * observation (e.g. {@link #handler} of its own queue), and run the deferral worker with {@code
 * observations.handler("deferred", deferrals.jobHandler())}. The deferred message's enqueue span is then a child
 * of the run that deferred it, and its first run a child of that enqueue span.
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
            JobRunContext context = new JobRunContext(queue, job);
            Observation.createNotStarted(RUN, () -> context, registry)
                    .contextualName("run " + queue)
                    .lowCardinalityKeyValue("queue", queue)
                    .lowCardinalityKeyValue("retry", String.valueOf(job.attempts() > 1))
                    .observeChecked(() -> handler.handle(job));
        };
    }
}
