package io.github.deferlock.micrometer;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.JobState;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sizes of one queue, read from Redis at most once per refresh interval: a registry may scrape every second
 * and four gauges read them, but Redis is asked once. A reading that fails is NaN until the next one works.
 */
final class QueueSnapshots {

    private static final Logger LOG = LoggerFactory.getLogger(QueueSnapshots.class);

    /** One reading; NaN everywhere when Redis could not be read. */
    record Snapshot(double due, double inFlight, double dead, double oldestDueAgeMillis, long readAtMillis) {
        static Snapshot failed(long at) {
            return new Snapshot(Double.NaN, Double.NaN, Double.NaN, Double.NaN, at);
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
            return s != null ? s : Snapshot.failed(now);
        }
        try {
            s = last;
            if (s != null && now - s.readAtMillis() < refreshMillis) {
                return s;
            }
            last = read(now);
            return last;
        } finally {
            reading.unlock();
        }
    }

    /** How many times Redis was read; for tests. */
    long reads() {
        return reads;
    }

    private Snapshot read(long now) {
        reads++;
        try {
            return new Snapshot(
                    queue.size(JobState.DUE),
                    queue.size(JobState.IN_FLIGHT),
                    queue.size(JobState.DEAD),
                    queue.oldestDueAge().toNanos() / 1e6,
                    now);
        } catch (RuntimeException e) {
            LOG.debug("cannot read the sizes of queue '{}'", queue.name(), e);
            return Snapshot.failed(now);
        }
    }
}
