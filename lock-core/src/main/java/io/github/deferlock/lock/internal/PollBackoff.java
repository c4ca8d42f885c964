package io.github.deferlock.lock.internal;

import java.util.concurrent.TimeUnit;

/**
 * The fallback poll of one contender waiting on another process, for when a release notice is missed: the
 * pause starts at {@link #FIRST_NANOS} and doubles up to {@link #MAX_NANOS}, and never runs past the wait
 * that is left or past the holder's TTL. Not threadsafe: one per wait.
 */
final class PollBackoff {
    /** The first pause. */
    static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** The longest pause. */
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private long poll = FIRST_NANOS;

    /**
     * The next pause, and the backoff moves on.
     *
     * @param leftNanos the wait that is left; positive
     * @param holderTtlMillis the holder's TTL as Redis reported it; negative when unknown
     */
    long next(long leftNanos, long holderTtlMillis) {
        long pause = Math.min(poll, leftNanos);
        if (holderTtlMillis >= 0) {
            pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(holderTtlMillis + 1));
        }
        poll = Math.min(poll * 2, MAX_NANOS);
        return pause;
    }
}
