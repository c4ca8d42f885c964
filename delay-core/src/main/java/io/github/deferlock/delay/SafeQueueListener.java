package io.github.deferlock.delay;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps a user's {@link QueueListener} so that it can never change what happens to a job: an exception it
 * throws is caught and logged at WARN, at most once a minute per queue (the rest are counted in the next
 * warning).
 */
final class SafeQueueListener implements QueueListener {

    private static final Logger LOG = LoggerFactory.getLogger(QueueListener.class);
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final String queue;
    private final QueueListener delegate;
    private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
    private final AtomicLong suppressed = new AtomicLong();

    SafeQueueListener(String queue, QueueListener delegate) {
        this.queue = queue;
        this.delegate = delegate;
    }

    @Override
    public void onEnqueued(String queue, String jobId, Instant dueAt) {
        try {
            delegate.onEnqueued(queue, jobId, dueAt);
        } catch (RuntimeException | Error e) {
            failed("onEnqueued", e);
        }
    }

    @Override
    public void onClaimed(String queue, String jobId, int attempt) {
        try {
            delegate.onClaimed(queue, jobId, attempt);
        } catch (RuntimeException | Error e) {
            failed("onClaimed", e);
        }
    }

    @Override
    public void onHandled(String queue, String jobId, Duration runTime, Duration lateness) {
        try {
            delegate.onHandled(queue, jobId, runTime, lateness);
        } catch (RuntimeException | Error e) {
            failed("onHandled", e);
        }
    }

    @Override
    public void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {
        try {
            delegate.onFailed(queue, jobId, attempt, error, willRetry);
        } catch (RuntimeException | Error e) {
            failed("onFailed", e);
        }
    }

    @Override
    public void onDeadLettered(String queue, String jobId, String reason) {
        try {
            delegate.onDeadLettered(queue, jobId, reason);
        } catch (RuntimeException | Error e) {
            failed("onDeadLettered", e);
        }
    }

    @Override
    public void onClaimLost(String queue, String jobId) {
        try {
            delegate.onClaimLost(queue, jobId);
        } catch (RuntimeException | Error e) {
            failed("onClaimLost", e);
        }
    }

    @Override
    public void onGivenBack(String queue, String jobId) {
        try {
            delegate.onGivenBack(queue, jobId);
        } catch (RuntimeException | Error e) {
            failed("onGivenBack", e);
        }
    }

    private void failed(String method, Throwable e) {
        if (e instanceof VirtualMachineError) {
            throw (VirtualMachineError) e;
        }
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now)) {
            long more = suppressed.getAndSet(0);
            LOG.warn(
                    "listener {} of queue '{}' threw from {} (ignored; {} more since the last warning)",
                    delegate.getClass().getName(),
                    queue,
                    method,
                    more,
                    e);
        } else {
            suppressed.incrementAndGet();
        }
    }
}
