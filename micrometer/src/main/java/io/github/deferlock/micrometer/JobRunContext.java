package io.github.deferlock.micrometer;

import io.github.deferlock.conflict.DeferredMessage;
import io.github.deferlock.delay.Job;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The observation context of one run of a delay-queue job ({@link JobObservations#RUN}): the job is the
 * carrier of the propagation fields stored at enqueue. {@link #linksToCreation()} says how a tracing handler
 * should relate the run to that stored context: the first run continues it as a child; a retry or a deferred
 * message deferred again is a new span (a child of the current one, or a root) with a link to it, as the
 * OpenTelemetry messaging conventions ask of a "process" span. {@link JobRunTracingHandler} does that; Micrometer
 * Tracing's generic {@code PropagatingReceiverTracingObservationHandler} makes every run a child.
 */
public final class JobRunContext extends ReceiverContext<Job<?>> {

    private final String queue;
    private final boolean linksToCreation;

    JobRunContext(String queue, Job<?> job) {
        super((j, key) -> j.headers().get(key), Kind.CONSUMER);
        setCarrier(job);
        setRemoteServiceName("redis");
        this.queue = queue;
        this.linksToCreation = job.attempts() > 1 || (job.payload() instanceof DeferredMessage m && m.deferrals() > 1);
    }

    /** The queue the job came from. */
    public String queue() {
        return queue;
    }

    /** The job being run. */
    public Job<?> job() {
        return getCarrier();
    }

    /**
     * True for a retry ({@code attempts() > 1}) and for a deferred message that was deferred again: its span
     * should link to the stored creation context rather than be its child. False for the first run.
     */
    public boolean linksToCreation() {
        return linksToCreation;
    }
}
