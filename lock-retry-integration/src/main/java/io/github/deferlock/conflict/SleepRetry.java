package io.github.deferlock.conflict;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;

/**
 * The bounds of {@link OnConflict#SLEEP_RETRY}: how long to wait between tries ({@code backoff}; the waits
 * are the lock's own, so a release ends one early), how many tries in all ({@code maxAttempts}, counting the
 * first), and the most time to spend waiting ({@code maxWait}). Both bounds always apply, so a dead holder's key can never freeze a thread for longer than
 * {@code maxWait}. Immutable and threadsafe.
 *
 * @param backoff the delay before each retry; attempt 1 is the first retry
 * @param maxAttempts the most tries, the first included; at least 1
 * @param maxWait the most total time spent waiting between tries (the sum of the delays); positive
 */
public record SleepRetry(Backoff backoff, int maxAttempts, Duration maxWait) {

    /** The default: exponential backoff 10 ms → 500 ms with 20 % jitter, 20 attempts, at most 10 s. */
    public static final SleepRetry DEFAULT = new SleepRetry(
            Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2.0)
                    .withJitter(0.2),
            20,
            Duration.ofSeconds(10));

    /**
     * Validates the bounds.
     *
     * @throws NullPointerException when {@code backoff} or {@code maxWait} is null
     * @throws IllegalArgumentException when {@code maxAttempts < 1} or {@code maxWait} is not positive
     */
    public SleepRetry {
        Require.notNull("backoff", backoff);
        Require.atLeast("maxAttempts", maxAttempts, 1);
        Require.positive("maxWait", maxWait);
    }
}
