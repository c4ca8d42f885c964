package io.github.deferlock.lock.internal;

import io.github.deferlock.redis.internal.FallbackPoll;
import java.util.concurrent.TimeUnit;

/**
 * The fallback poll of one contender waiting on another process, for when a release notice is missed: a
 * {@link FallbackPoll} from {@link #FIRST_NANOS} doubling up to {@link #MAX_NANOS}, never past the wait that
 * is left, and never past the holder's TTL. Not threadsafe: one per wait.
 */
final class PollBackoff {
    /** The first pause. */
    static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * The longest pause: also how often a waiter at least refreshes its place in the key's waiter queue, whose
     * entries live {@link LockScripts#WAITER_LIFE_MILLIS}.
     */
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final FallbackPoll poll = new FallbackPoll(FIRST_NANOS, MAX_NANOS);

    /**
     * The next pause, and the backoff moves on.
     *
     * @param leftNanos the wait that is left; positive
     * @param holderTtlMillis the holder's TTL as Redis reported it; negative when unknown
     */
    long next(long leftNanos, long holderTtlMillis) {
        long pause = poll.next(leftNanos);
        if (holderTtlMillis >= 0) {
            pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(holderTtlMillis + 1));
        }
        return pause;
    }
}
