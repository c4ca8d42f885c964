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
 * <p>delay-core keeps no enqueued or acked counters, so the rates are estimated from what Redis holds: the
 * queue's sequence counter {@code s} grows by one per enqueued job and one per claimed job ({@code Δs = E + C}),
 * and the waiting set changes by what is enqueued minus what is claimed ({@code Δw = E − C}) when no job goes
 * back to waiting in the interval. So {@code E = (Δs + Δw) / 2}, {@code C = (Δs − Δw) / 2}, and the handled
 * deliveries (acked, or failed to the dead letters) are {@code C − Δ(in flight)}. Retries, expired claims,
 * requeues and cancels in the interval make the estimate off by half their number; the page says "≈". Threadsafe.
 */
public final class RateSampler {

    /**
     * One reading of a queue.
     *
     * @param sequence the queue's sequence counter, or -1 when unknown
     */
    public record Counts(String queue, long waiting, long inFlight, long dead, long oldestDueAgeMs, long sequence) {}

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
                || before.sequence() < 0
                || counts.sequence() < before.sequence()) {
            return new Sample(now, null, null, counts.oldestDueAgeMs());
        }
        double seconds = (now - previous.atMs()) / 1000.0;
        long ds = counts.sequence() - before.sequence();
        long dw = counts.waiting() - before.waiting();
        double enqueued = clamp((ds + dw) / 2.0, ds);
        double claimed = clamp((ds - dw) / 2.0, ds);
        double handled = Math.max(0, claimed - (counts.inFlight() - before.inFlight()));
        return new Sample(now, enqueued / seconds, handled / seconds, counts.oldestDueAgeMs());
    }

    private static double clamp(double x, long max) {
        return Math.max(0, Math.min(max, x));
    }

    /** Package-private for tests: a sample from two readings {@code seconds} apart. */
    static Sample between(Counts before, Counts after, long beforeMs, long afterMs) {
        return sample(new Reading(beforeMs, before), afterMs, after);
    }
}
