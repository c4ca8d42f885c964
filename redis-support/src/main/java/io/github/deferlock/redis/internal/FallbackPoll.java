package io.github.deferlock.redis.internal;

/**
 * The bounded fallback poll of a waiter that also listens on a {@link NoticeBus}: notices can be lost (a
 * dropped connection, a failover), so the waiter looks again after a pause that starts short and doubles up
 * to a bound, and never past its own deadline. One per wait; not threadsafe.
 */
public final class FallbackPoll {
    private final long maxNanos;
    private long nextNanos;

    /**
     * @param firstNanos the first pause
     * @param maxNanos the bound the pauses double up to
     */
    public FallbackPoll(long firstNanos, long maxNanos) {
        Require.atLeast("firstNanos", firstNanos, 1);
        Require.atLeast("maxNanos", maxNanos, firstNanos);
        this.nextNanos = firstNanos;
        this.maxNanos = maxNanos;
    }

    /** The next pause, at most {@code leftNanos} (the time left to wait); doubles the one after it. */
    public long next(long leftNanos) {
        long pause = Math.min(nextNanos, leftNanos);
        nextNanos = Math.min(nextNanos * 2, maxNanos);
        return pause;
    }
}
