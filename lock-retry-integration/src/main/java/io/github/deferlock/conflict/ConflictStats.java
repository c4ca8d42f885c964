package io.github.deferlock.conflict;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link ConflictListener} that counts events, for metrics and dashboards: acquired, conflicts, retries,
 * deferrals, dead letters, processed, duplicates skipped, lost locks, and the total time SLEEP_RETRY allowed
 * for its waits (the sum of the delays; a release ends a wait early). Threadsafe; counters are monotonic.
 */
public final class ConflictStats implements ConflictListener {

    private final LongAdder acquired = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder deferrals = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder processed = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder lost = new LongAdder();
    private final LongAdder sleptNanos = new LongAdder();

    /** Creates counters at zero. */
    public ConflictStats() {}

    @Override
    public void onAcquired(String key, Duration waited) {
        acquired.increment();
    }

    @Override
    public void onConflict(String key, OnConflict strategy, Optional<Duration> holderTtl) {
        conflicts.increment();
    }

    @Override
    public void onRetried(String key, int nextAttempt, Duration delay) {
        retries.increment();
        sleptNanos.add(delay.toNanos());
    }

    @Override
    public void onDeferred(String key, int deferralCount, Duration delay) {
        deferrals.increment();
    }

    @Override
    public void onDeadLettered(String key, String reason) {
        deadLettered.increment();
    }

    @Override
    public void onProcessed(String key, Duration held) {
        processed.increment();
    }

    @Override
    public void onLockLost(String key, long fencingToken) {
        lost.increment();
    }

    @Override
    public void onDuplicateSkipped(String key, String messageId) {
        duplicates.increment();
    }

    /** Locks acquired. */
    public long acquired() {
        return acquired.sum();
    }

    /** Conflicts seen (each failed try counts). */
    public long conflicts() {
        return conflicts.sum();
    }

    /** SLEEP_RETRY waits before a retry. */
    public long retries() {
        return retries.sum();
    }

    /** Messages deferred (each deferral counts). */
    public long deferrals() {
        return deferrals.sum();
    }

    /** Messages dead-lettered. */
    public long deadLettered() {
        return deadLettered.sum();
    }

    /** Critical sections run and released. */
    public long processed() {
        return processed.sum();
    }

    /** Redeliveries skipped by their message id. */
    public long duplicatesSkipped() {
        return duplicates.sum();
    }

    /** Locks lost while held. */
    public long lost() {
        return lost.sum();
    }

    /** The sum of the delays SLEEP_RETRY waited up to (a release ends a wait early). */
    public Duration slept() {
        return Duration.ofNanos(sleptNanos.sum());
    }
}
