package io.github.deferlock.delay;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One queue's sizes and counters, read by one read-only script call ({@link DelayQueue#stats()}), so they are a
 * consistent snapshot at {@code at}. Immutable.
 *
 * <p>The three counters are monotonic: they only grow (until someone deletes the queue's {@code stats} key), so
 * a rate is the difference of two readings divided by the time between them ({@link #at}). They are kept by the
 * queue's scripts themselves, so every client and worker of the queue is counted, whichever process it runs in.
 *
 * @param queue the queue name
 * @param waiting jobs in the due set, including those scheduled for later and those held back for their
 *     concurrency key ({@link DelayQueue#concurrencyKeys()})
 * @param due jobs whose due time has come (a subset of {@code waiting}, held jobs included): the backlog
 * @param inFlight jobs claimed by a worker and not yet settled
 * @param dead dead letters held now
 * @param oldestDueAge how long the earliest due job has been due; zero when none is due
 * @param enqueued jobs ever stored by an enqueue; an enqueue whose id already exists stores nothing and is not
 *     counted
 * @param acked jobs ever acked (deleted after their handler finished), alone, in batches or with a claim
 * @param deadLettered jobs ever moved to the dead letters (attempts used, a visibility timeout on the last
 *     attempt, or a dead-letter call); a requeued dead letter that dies again is counted again
 * @param at the server time of the reading
 * @param pausedSince when the queue was paused ({@link DelayQueue#pause()}, server clock), or null while it runs
 * @param held jobs held back because their concurrency key is at its limit ({@link DelayQueue#concurrencyKeys()}):
 *     a part of {@code due} and {@code waiting}, read from the same gauge the scripts keep; 0 for a queue without
 *     concurrency keys. {@link ConcurrencyKeys#heldByKey(int)} says which keys
 */
public record QueueStats(
        String queue,
        long waiting,
        long due,
        long inFlight,
        long dead,
        Duration oldestDueAge,
        long enqueued,
        long acked,
        long deadLettered,
        Instant at,
        Instant pausedSince,
        long held) {

    /** Validates the components. */
    public QueueStats {
        Objects.requireNonNull(queue, "queue cannot be null");
        Objects.requireNonNull(oldestDueAge, "oldestDueAge cannot be null");
        Objects.requireNonNull(at, "at cannot be null");
    }

    /**
     * A reading without a held count (the components before {@link #held} came): {@code held} is 0.
     *
     * @deprecated use the canonical constructor, which takes {@code held}
     */
    @Deprecated
    public QueueStats(
            String queue,
            long waiting,
            long due,
            long inFlight,
            long dead,
            Duration oldestDueAge,
            long enqueued,
            long acked,
            long deadLettered,
            Instant at,
            Instant pausedSince) {
        this(queue, waiting, due, inFlight, dead, oldestDueAge, enqueued, acked, deadLettered, at, pausedSince, 0);
    }

    /**
     * A reading of a queue that is not paused (the components before {@link #pausedSince} came): {@code held} is 0.
     *
     * @deprecated use the canonical constructor, which takes {@code pausedSince} and {@code held}
     */
    @Deprecated
    public QueueStats(
            String queue,
            long waiting,
            long due,
            long inFlight,
            long dead,
            Duration oldestDueAge,
            long enqueued,
            long acked,
            long deadLettered,
            Instant at) {
        this(queue, waiting, due, inFlight, dead, oldestDueAge, enqueued, acked, deadLettered, at, null, 0);
    }

    /** True when the queue was paused at the time of the reading: its workers claim nothing. */
    public boolean paused() {
        return pausedSince != null;
    }

    /**
     * The reply of stats.lua: {now ms, waiting, due, in flight, dead, head ms or -1, enqueued, acked, dead, paused
     * since ms or -1, held}.
     */
    static QueueStats of(String queue, List<?> r) {
        long now = (Long) r.get(0);
        long head = (Long) r.get(5);
        Duration age = head >= 0 && head < now ? Duration.ofMillis(now - head) : Duration.ZERO;
        return new QueueStats(
                queue,
                (Long) r.get(1),
                (Long) r.get(2),
                (Long) r.get(3),
                (Long) r.get(4),
                age,
                (Long) r.get(6),
                (Long) r.get(7),
                (Long) r.get(8),
                Instant.ofEpochMilli(now),
                r.size() > 9 && (Long) r.get(9) >= 0 ? Instant.ofEpochMilli((Long) r.get(9)) : null,
                r.size() > 10 ? Math.max(0, (Long) r.get(10)) : 0);
    }
}
