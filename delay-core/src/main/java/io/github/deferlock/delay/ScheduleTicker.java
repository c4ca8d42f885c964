package io.github.deferlock.delay;

import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that fires a queue's recurring schedules in this process ({@link Schedules#tick()}): it ticks, then
 * waits until the earliest next slot, at most {@link Schedules#MAX_TICK_MS}, or until an upsert's
 * notice ({@link #nudge()}). A failing tick (Redis down, a
 * failover) is logged and retried with a growing pause of up to 5 s; it never stops the thread. One per queue per
 * process, started by the first firing {@link DelayQueueWorker} and closed by the last. Its state is guarded by
 * its own monitor.
 */
final class ScheduleTicker {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);
    private static final long MAX_BACKOFF_MS = 5000;

    private final String queue;
    private final LongSupplier tick;
    private boolean closed; // guarded by this
    private boolean nudged; // guarded by this
    private Thread thread;

    ScheduleTicker(String queue, LongSupplier tick) {
        this.queue = queue;
        this.tick = tick;
    }

    void start(String threadName) {
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int failures = 0;
        while (true) {
            long waitMs;
            try {
                waitMs = tick.getAsLong();
                if (failures > 0) {
                    LOG.info("queue '{}': firing schedules again after {} failed tick(s)", queue, failures);
                }
                failures = 0;
            } catch (RuntimeException e) {
                failures++;
                if (failures == 1) {
                    LOG.warn("queue '{}': firing schedules failed, retrying: {}", queue, e.toString());
                } else {
                    LOG.debug("queue '{}': firing schedules failed again: {}", queue, e.toString());
                }
                waitMs = Math.min(MAX_BACKOFF_MS, 100L << Math.min(failures, 6));
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (nudged) {
                    nudged = false;
                    continue;
                }
                if (waitMs > 0) {
                    try {
                        wait(waitMs);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                nudged = false;
            }
        }
    }

    /** A schedule was upserted (a notice on the schedule-wake channel): tick now. */
    synchronized void nudge() {
        nudged = true;
        notifyAll();
    }

    /** Stops the thread; waits up to 5 s for a tick under way. */
    void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
