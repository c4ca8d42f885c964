package io.github.deferlock.micrometer;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueStats;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sizes and counters of one queue ({@link DelayQueue#stats()}: one script call), read from Redis at most once
 * per refresh interval: a registry may scrape every second and eight meters read them, but Redis is asked once. A
 * reading that fails shows the sizes as NaN until the next one works; the counters keep their last value.
 */
final class QueueSnapshots {

    private static final Logger LOG = LoggerFactory.getLogger(QueueSnapshots.class);

    /**
     * One reading; sizes and the paused state (1 or 0) NaN when Redis could not be read, counters NaN until the
     * first reading works.
     */
    record Snapshot(
            double due,
            double inFlight,
            double dead,
            double oldestDueAgeMillis,
            double enqueued,
            double acked,
            double deadLettered,
            double paused,
            long readAtMillis) {
        static Snapshot failed(Snapshot previous, long at) {
            return previous == null
                    ? new Snapshot(
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            at)
                    : new Snapshot(
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            Double.NaN,
                            previous.enqueued(),
                            previous.acked(),
                            previous.deadLettered(),
                            Double.NaN,
                            at);
        }
    }

    private final DelayQueue<?> queue;
    private final long refreshMillis;
    private final Clock clock;
    private final ReentrantLock reading = new ReentrantLock();
    private volatile Snapshot last;
    private volatile long reads;

    QueueSnapshots(DelayQueue<?> queue, Duration refresh, Clock clock) {
        this.queue = queue;
        this.refreshMillis = refresh.toMillis();
        this.clock = clock;
    }

    /** The last reading, or a new one when it is older than the refresh interval. */
    Snapshot current() {
        Snapshot s = last;
        long now = clock.millis();
        if (s != null && now - s.readAtMillis() < refreshMillis) {
            return s;
        }
        if (!reading.tryLock()) {
            // another thread is reading: use what we have rather than queue up behind it
            return s != null ? s : Snapshot.failed(null, now);
        }
        try {
            s = last;
            if (s != null && now - s.readAtMillis() < refreshMillis) {
                return s;
            }
            last = read(s, now);
            return last;
        } finally {
            reading.unlock();
        }
    }

    /** How many times Redis was read; for tests. */
    long reads() {
        return reads;
    }

    private Snapshot read(Snapshot previous, long now) {
        reads++;
        try {
            QueueStats stats = queue.stats();
            return new Snapshot(
                    stats.waiting(),
                    stats.inFlight(),
                    stats.dead(),
                    stats.oldestDueAge().toNanos() / 1e6,
                    stats.enqueued(),
                    stats.acked(),
                    stats.deadLettered(),
                    stats.paused() ? 1 : 0,
                    now);
        } catch (RuntimeException e) {
            LOG.debug("cannot read the stats of queue '{}'", queue.name(), e);
            return Snapshot.failed(previous, now);
        }
    }
}
