package io.github.deferlock.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The most contended locks under a prefix over the last minutes, from the per-minute conflict buckets that
 * lock-retry-integration keeps (docs/ops.md, "Conflict stats"). Immutable.
 *
 * @param prefix the lock key prefix
 * @param since the start of the oldest minute read
 * @param window from {@code since} to the time of the read: divide a count by it for a rate
 * @param locks the most contended locks, most conflicts first (ties by name)
 */
public record ConflictReport(String prefix, Instant since, Duration window, List<ConflictView> locks) {
    /** Validates and copies the components. */
    public ConflictReport {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(since, "since cannot be null");
        Objects.requireNonNull(window, "window cannot be null");
        locks = List.copyOf(locks);
    }

    /** {@code count} conflicts over the window, per second. */
    public double perSecond(long count) {
        long millis = Math.max(1, window.toMillis());
        return count * 1000.0 / millis;
    }
}
