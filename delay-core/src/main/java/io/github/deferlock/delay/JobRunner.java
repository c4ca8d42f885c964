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
 * @param <T> the payload type
 */
final class JobRunner<T> implements HandlerPool.Runner<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    /** As {@link DelayQueue} cuts the error it stores, so the dead-letter event names the stored reason. */
    private static final int MAX_ERROR_CHARS = 4000;

    private final String queueName;
    private final int maxAttempts;
    private final JobHandler<T> handler;
    private final RunningJobRenewer<Job<T>> renewer;
    private final Settler<T> settler;
    private final AckBatcher<T> acks;
    private final QueueListener listener;
    private final boolean listening;
    private final Ticker ticker;
    private final BooleanSupplier closed;

    JobRunner(
            String queueName,
            int maxAttempts,
            JobHandler<T> handler,
            RunningJobRenewer<Job<T>> renewer,
            Settler<T> settler,
            AckBatcher<T> acks,
            QueueListener listener,
            Ticker ticker,
            BooleanSupplier closed) {
        this.queueName = queueName;
        this.maxAttempts = maxAttempts;
        this.handler = handler;
        this.renewer = renewer;
        this.settler = settler;
        this.acks = acks;
        this.listener = listener;
        this.listening = listener != QueueListener.NONE;
        this.ticker = ticker;
        this.closed = closed;
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
            if (listening) {
                listener.onHandled(
                        queueName, job.id(), Duration.ofNanos(end - start), Duration.ofNanos(Math.max(0, start - due)));
            }
            acks.add(job);
            return;
        }
        LOG.debug("queue '{}': job {} attempt {} failed", queueName, job.id(), job.attempts(), failure);
        String error = failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
        if (settler.nack(job, error) == Settler.Outcome.DONE && listening) {
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
