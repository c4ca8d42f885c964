package io.github.deferlock.dashboard.internal;

import io.github.deferlock.dashboard.internal.ReadModel.QueueRow;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The charts' data: fed the queue figures read every refresh interval, it keeps per queue the last
 * {@code history} of samples — enqueued and handled per second (from the running counts' change between two
 * readings) and lateness (the oldest due job's age). When the handled count is unknown it is derived: what
 * was enqueued minus what the queue grew by (due + in flight + dead), which also counts cancels and purges.
 * Threadsafe.
 */
public final class RateSampler {

    /** One point of a queue's charts; a rate is null when it is unknown (first reading, counter reset). */
    public record Sample(long t, Double enqueuedPerSec, Double handledPerSec, long latenessMs) {}

    private record Reading(long atMs, QueueRow row) {}

    private final int capacity;
    private final LongSupplier clockMs;
    private final Map<String, Reading> last = new HashMap<>();
    private final Map<String, ArrayDeque<Sample>> samples = new HashMap<>();

    /**
     * A sampler keeping {@code history / interval} samples per queue.
     *
     * @param clockMs the wall clock, epoch ms
     */
    public RateSampler(Duration history, Duration interval, LongSupplier clockMs) {
        this.capacity = (int) Math.max(2, history.toMillis() / Math.max(1, interval.toMillis()));
        this.clockMs = clockMs;
    }

    /** Records one reading of every queue; queues absent from it are forgotten. */
    public synchronized void record(List<QueueRow> rows) {
        long now = clockMs.getAsLong();
        Map<String, Reading> seen = new HashMap<>();
        for (QueueRow row : rows) {
            Reading previous = last.get(row.name());
            Sample sample = sample(previous, now, row);
            ArrayDeque<Sample> queue = samples.computeIfAbsent(row.name(), n -> new ArrayDeque<>());
            queue.addLast(sample);
            while (queue.size() > capacity) {
                queue.removeFirst();
            }
            seen.put(row.name(), new Reading(now, row));
        }
        last.clear();
        last.putAll(seen);
        samples.keySet().retainAll(seen.keySet());
    }

    /** The samples of {@code queue}, oldest first (empty for an unknown queue). */
    public synchronized List<Sample> history(String queue) {
        ArrayDeque<Sample> queueSamples = samples.get(queue);
        return queueSamples == null ? List.of() : List.copyOf(queueSamples);
    }

    /** The latest sample of {@code queue}, or null. */
    public synchronized Sample latest(String queue) {
        ArrayDeque<Sample> queueSamples = samples.get(queue);
        return queueSamples == null ? null : queueSamples.peekLast();
    }

    private static Sample sample(Reading previous, long now, QueueRow row) {
        if (previous == null || now <= previous.atMs()) {
            return new Sample(now, null, null, row.oldestDueAgeMs());
        }
        double seconds = (now - previous.atMs()) / 1000.0;
        QueueRow before = previous.row();
        Long enqueued = delta(before.enqueuedTotal(), row.enqueuedTotal());
        Long handled = delta(before.handledTotal(), row.handledTotal());
        if (handled == null && enqueued != null) {
            long growth = (row.due() + row.inFlight() + row.dead()) - (before.due() + before.inFlight() + before.dead());
            handled = Math.max(0, enqueued - growth);
        }
        return new Sample(
                now,
                enqueued == null ? null : enqueued / seconds,
                handled == null ? null : handled / seconds,
                row.oldestDueAgeMs());
    }

    private static Long delta(long before, long after) {
        if (before < 0 || after < 0 || after < before) {
            return null;
        }
        return after - before;
    }
}
