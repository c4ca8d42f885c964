package io.github.deferlock.dashboard.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The charts' data: fed the queues' counts every refresh interval, it keeps per queue the last {@code history}
 * of samples — enqueued and handled per second, and lateness (the oldest due job's age).
 *
 * <p>The rates are exact: they are the differences, over the time between two readings, of the monotonic
 * counters the queue's scripts keep ({@code QueueStats.enqueued()}, {@code acked()}, {@code deadLettered()}).
 * Handled means settled for good: acked, or moved to the dead letters. A counter that went back (the queue's
 * {@code stats} key deleted, Redis lost data) gives no rate rather than a wrong one. Threadsafe.
 */
public final class RateSampler {

    /**
     * One reading of a queue.
     *
     * @param enqueued the queue's enqueued counter
     * @param handled its acked plus dead-lettered counters
     */
    public record Counts(String queue, long oldestDueAgeMs, long enqueued, long handled) {}

    /** One point of a queue's charts; a rate is null when unknown (first reading, counter reset). */
    public record Sample(long t, Double enqueuedPerSec, Double handledPerSec, long latenessMs) {}

    private record Reading(long atMs, Counts counts) {}

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
    public synchronized void record(List<Counts> readings) {
        long now = clockMs.getAsLong();
        Map<String, Reading> seen = new HashMap<>();
        for (Counts counts : readings) {
            Sample sample = sample(last.get(counts.queue()), now, counts);
            ArrayDeque<Sample> queue = samples.computeIfAbsent(counts.queue(), n -> new ArrayDeque<>());
            queue.addLast(sample);
            while (queue.size() > capacity) {
                queue.removeFirst();
            }
            seen.put(counts.queue(), new Reading(now, counts));
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

    static Sample sample(Reading previous, long now, Counts counts) {
        Counts before = previous == null ? null : previous.counts();
        if (before == null
                || now <= previous.atMs()
                || counts.enqueued() < before.enqueued()
                || counts.handled() < before.handled()) {
            return new Sample(now, null, null, counts.oldestDueAgeMs());
        }
        double seconds = (now - previous.atMs()) / 1000.0;
        return new Sample(
                now,
                (counts.enqueued() - before.enqueued()) / seconds,
                (counts.handled() - before.handled()) / seconds,
                counts.oldestDueAgeMs());
    }

    /** Package-private for tests: a sample from two readings {@code seconds} apart. */
    static Sample between(Counts before, Counts after, long beforeMs, long afterMs) {
        return sample(new Reading(beforeMs, before), afterMs, after);
    }
}
