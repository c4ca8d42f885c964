package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.RunningJobRenewer;
import io.github.deferlock.delay.internal.Ticker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed job on a handler thread and settles it: the handler runs while the renewer keeps the job's
 * claim; returning queues the ack, throwing nacks the job with the queue's backoff (or dead-letters it when it
 * used its attempts), a handler that settled the job itself is left alone, a lost claim is one WARN and no
 * Redis call, and a run that {@code close()} interrupted gives the job back without spending an attempt.
 * Tells the listener what happened (handled, failed, dead-lettered, claim lost, given back); when nobody
 * listens it builds no event arguments.
 *
 * <p>Stateless apart from its collaborators; threadsafe.
 *
 * @param queueName the queue's name, for logs and events
 * @param maxAttempts deliveries before a failing job goes to the dead letters
 * @param handler the user's handler
 * @param renewer keeps the claims of running jobs
 * @param settler nacks, dead-letters and gives back, with the worker's retry
 * @param acks queues the acks of handled jobs
 * @param listener hears the events, or {@link QueueListener#NONE}
 * @param ticker the worker's clock
 * @param closed whether the worker is closing (an interrupted run then gives its job back)
 * @param <T> the payload type
 */
record JobRunner<T>(
        String queueName,
        int maxAttempts,
        JobHandler<T> handler,
        RunningJobRenewer<Job<T>> renewer,
        Settler<T> settler,
        AckBatcher<T> acks,
        QueueListener listener,
        Ticker ticker,
        BooleanSupplier closed)
        implements HandlerPool.Runner<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    /** As {@link DelayQueue} cuts the error it stores, so the dead-letter event names the stored reason. */
    private static final int MAX_ERROR_CHARS = 4000;

    /** Whether anyone listens: with nobody, no event arguments are built. */
    private boolean listening() {
        return listener != QueueListener.NONE;
    }

    @Override
    public void run(Job<T> job, long start, long due) {
        Throwable failure = null;
        RunningJobRenewer.Registration<Job<T>> renewal = renewer.register(job, Thread.currentThread());
        try {
            handler.handle(job);
        } catch (Throwable t) {
            failure = t;
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            renewer.unregister(renewal);
        }
        long end = ticker.read();
        if (job.isSettled()) {
            return;
        }
        if (job.isClaimLost()) { // Redis refused its receipt already: the settlement would be refused too
            LOG.warn(
                    "queue '{}': {} of job {} refused: its claim was lost while the handler ran (the job was"
                            + " cancelled, or redelivered after its visibility timeout)",
                    queueName,
                    failure == null ? "ack" : "nack",
                    job.id());
            job.markSettled();
            return;
        }
        if (failure != null && closed.getAsBoolean() && interruptedBy(failure)) {
            // close() interrupted a handler that did not finish: this is not a failure of the job, so it
            // goes back to due at once without counting an attempt
            settler.giveBack(job, "return on close");
            return;
        }
        if (failure == null) {
            if (listening()) {
                listener.onHandled(
                        queueName, job.id(), Duration.ofNanos(end - start), Duration.ofNanos(Math.max(0, start - due)));
            }
            acks.add(job);
            return;
        }
        job.flushProgress(); // the dead letter or the retry shows how far the failed run got
        LOG.debug("queue '{}': job {} attempt {} failed", queueName, job.id(), job.attempts(), failure);
        String error = failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
        if (settler.nack(job, error) == Settler.Outcome.DONE && listening()) {
            // nack.lua dead-letters exactly when the job used its attempts: its count does not change in flight
            boolean willRetry = job.attempts() < maxAttempts;
            listener.onFailed(queueName, job.id(), job.attempts(), failure, willRetry);
            if (!willRetry) {
                listener.onDeadLettered(
                        queueName,
                        job.id(),
                        error.length() > MAX_ERROR_CHARS ? error.substring(0, MAX_ERROR_CHARS) : error);
            }
        }
    }

    @Override
    public void giveBackStale(Job<T> job) {
        settler.giveBack(job, "return of a job that waited too long in the buffer");
    }

    /**
     * The renewer's report that a running job's renewal was refused: the claim is lost, unless the handler
     * settled the job itself (then it is no loss). True when lost.
     */
    static boolean claimLost(Job<?> job, QueueListener listener, String queueName) {
        if (job.isSettled()) {
            return false;
        }
        job.markClaimLost();
        listener.onClaimLost(queueName, job.id());
        return true;
    }

    private static boolean interruptedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof java.io.InterruptedIOException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }
}
