package io.github.deferlock.delay;

import java.time.Duration;
import java.time.Instant;

/**
 * Hears what happens to the jobs of one {@link DelayQueue} and its workers: for metrics, logs and tracing.
 * Register it with {@code DelayQueue.Builder.listener(QueueListener)}; the queue and every worker built on it
 * report to it.
 *
 * <p>Every method has an empty default, so a listener overrides only what it needs. Methods are called on
 * the thread that did the work (the enqueuing thread, a worker's dispatcher or handler thread), after Redis
 * confirmed the change, so they must be quick and threadsafe. A listener that throws is logged at WARN (at most
 * once a minute per queue) and otherwise ignored: it never changes what happens to a job. When no listener is
 * registered the queue pays nothing beyond a field read.
 *
 * <p>{@code queue} is the queue's name (low cardinality, fit for a metric tag); {@code jobId} is the job's id
 * (high cardinality: never use it as a metric tag).
 */
public interface QueueListener {

    /** The listener that does nothing (the default). */
    QueueListener NONE = new QueueListener() {};

    /** A job was stored (a new id, or a replaced one); {@code dueAt} is when it falls due. */
    default void onEnqueued(String queue, String jobId, Instant dueAt) {}

    /** A worker claimed a job for its {@code attempt}-th run (1 for the first). */
    default void onClaimed(String queue, String jobId, int attempt) {}

    /**
     * A handler returned normally and the job is being acknowledged. {@code runTime} is the handler's own time;
     * {@code lateness} is how long after its due time the handler started (start − due, never negative; the due
     * time is placed by the server clock of the claim, so client clock skew does not enter). Not told when the
     * handler settled the job itself or its claim was lost.
     */
    default void onHandled(String queue, String jobId, Duration runTime, Duration lateness) {}

    /**
     * A handler threw and the worker's nack was applied. {@code willRetry} tells whether the job was scheduled
     * for another attempt ({@code false}: it was dead-lettered, and {@link #onDeadLettered} follows). Not told
     * when the claim was lost, when {@code close()} interrupted the handler (the job is given back), or when the
     * nack could not be sent (the job comes back after its visibility timeout).
     */
    default void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {}

    /** A job was moved to the dead letters, with the reason stored beside it. */
    default void onDeadLettered(String queue, String jobId, String reason) {}

    /**
     * A running job's claim was lost: its visibility could not be renewed (another worker may run it), so this
     * run's outcome will not be recorded.
     */
    default void onClaimLost(String queue, String jobId) {}

    /** A worker gave a claimed job back unrun (shutdown, or claimed ahead and not started), due again now. */
    default void onGivenBack(String queue, String jobId) {}
}
