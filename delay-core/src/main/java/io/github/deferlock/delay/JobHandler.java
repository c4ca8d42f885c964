package io.github.deferlock.delay;

/**
 * Handles one job for a {@link DelayQueueWorker}. Returning acks the job; throwing nacks it (retry after the
 * queue's {@link Backoff}, dead letters after its max attempts). A handler may instead settle the job
 * itself through the queue ({@code ack}, {@code nack}, {@code reschedule}, {@code deadLetter}); the worker
 * then leaves it alone. Implementations must be threadsafe when the worker's concurrency is above 1.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface JobHandler<T> {
    /**
     * Handles the job.
     *
     * @throws Exception any failure; the job is retried with backoff
     */
    void handle(Job<T> job) throws Exception;
}
