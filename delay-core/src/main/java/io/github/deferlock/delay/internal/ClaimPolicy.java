package io.github.deferlock.delay.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * When a worker claims and how many jobs: pure functions of the time (readings of a {@link Ticker}) and the
 * worker's counters, with no state of their own, so they are tested on numbers alone.
 *
 * <ul>
 *   <li><b>How many.</b> The free handler threads plus a claim-ahead allowance: as many jobs as the handlers are
 *       expected to start within the <i>start window</i> (a tenth of the visibility timeout, at most 1 s), judged
 *       by the average handler run, at most {@code batchSize}; none before the first run finished, and runs that
 *       look stuck (longer than the window and twice the average) do not count. A claim waits until the buffer
 *       is at most half of the allowance.
 *   <li><b>Stale.</b> A job that waited half the visibility timeout in the buffer is given back, not started.
 *   <li><b>When next.</b> After a full claim at once; after a short one at the earliest due time the server
 *       reported (or the fallback poll), and never sooner than 200 µs after an empty one; after a failure with a
 *       doubling pause from 50 ms up to the fallback poll (at least 1 s).
 *   <li><b>How long to wait.</b> The dispatcher sleeps until the first of those moments: the next claim, the
 *       oldest pending ack's send time, the oldest buffered job's stale time, or the fallback poll.
 * </ul>
 *
 * <p>Immutable and threadsafe.
 *
 * @param concurrency the handler threads
 * @param batchSize the most jobs one claim takes
 * @param startWindowNanos how soon claimed-ahead jobs should start: a tenth of the visibility timeout, at most 1 s
 * @param staleNanos how long a job may wait in the buffer: half the visibility timeout
 * @param fallbackPollNanos the longest an idle worker waits before it claims again
 */
public record ClaimPolicy(
        int concurrency, int batchSize, long startWindowNanos, long staleNanos, long fallbackPollNanos) {
    /** The start window's upper bound. */
    static final long MAX_START_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The shortest wait after a claim that found nothing due. */
    static final long MIN_IDLE_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private static final long FIRST_ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_LATE_MILLIS = TimeUnit.DAYS.toMillis(36_500); // keeps nanos within a long
    private static final int DEFAULT_MIN_BATCH = 32;
    private static final int DEFAULT_MAX_BATCH = 100;

    /**
     * A policy.
     *
     * @param concurrency the handler threads
     * @param batchSize the most jobs one claim takes
     * @param visibilityTimeout the queue's visibility timeout
     * @param fallbackPoll the longest an idle worker waits before it claims again
     */
    public ClaimPolicy(int concurrency, int batchSize, Duration visibilityTimeout, Duration fallbackPoll) {
        this(
                concurrency,
                batchSize,
                Math.min(visibilityTimeout.toNanos() / 10, MAX_START_WINDOW_NANOS),
                visibilityTimeout.toNanos() / 2,
                fallbackPoll.toNanos());
    }

    /** The default batch size for a concurrency: the concurrency, at least 32 and at most 100. */
    public static int defaultBatchSize(int concurrency) {
        return Math.min(DEFAULT_MAX_BATCH, Math.max(DEFAULT_MIN_BATCH, concurrency));
    }

    /**
     * How many jobs the next claim may take; 0 when it should wait for handlers to make room.
     *
     * @param inHand jobs claimed and not yet finished (buffered and running)
     * @param buffered jobs waiting in the buffer
     * @param avgHandlerNanos the average handler run, or -1 when none finished yet
     * @param stalledRuns runs in progress for longer than {@link #stallLimitNanos(long)}
     */
    public int claimSize(int inHand, int buffered, long avgHandlerNanos, int stalledRuns) {
        int ahead = 0;
        if (avgHandlerNanos >= 0) {
            int moving = Math.max(0, concurrency - stalledRuns);
            ahead = (int) Math.min(batchSize, moving * startWindowNanos / Math.max(1, avgHandlerNanos));
        }
        if (buffered > ahead / 2) {
            return 0;
        }
        return Math.max(0, Math.min(batchSize, concurrency + ahead - inHand));
    }

    /** A run in progress for longer than this looks stuck: the start window, and twice the average run. */
    public long stallLimitNanos(long avgHandlerNanos) {
        return Math.max(startWindowNanos, 2 * Math.max(0, avgHandlerNanos));
    }

    /** The new average after a run that took {@code took}: rises fast (half way), falls slowly (an eighth). */
    public static long averageAfter(long avgHandlerNanos, long took) {
        long avg = avgHandlerNanos;
        return avg < 0 ? took : took > avg ? (avg + took) / 2 : avg + (took - avg) / 8;
    }

    /** True when a job claimed at {@code claimedNanos} waited too long in the buffer to be started now. */
    public boolean isStale(long claimedNanos, long now) {
        return now - claimedNanos > staleNanos;
    }

    /** The first reading at which a job claimed at {@code claimedNanos} is stale. */
    public long staleAt(long claimedNanos) {
        return claimedNanos + staleNanos + 1;
    }

    /**
     * When to claim next after a claim that succeeded.
     *
     * @param asked the jobs asked for
     * @param claimed the jobs it returned
     * @param sent the reading when the call was sent
     * @param received the reading when its reply came
     * @param nextWakeMs the earliest due time or visibility deadline left (server epoch ms), -1 when none
     * @param serverNowMicros the server time of the claim
     */
    public long nextClaimAt(int asked, int claimed, long sent, long received, long nextWakeMs, long serverNowMicros) {
        if (claimed == asked) {
            return received; // maybe more are due
        }
        long next = received + fallbackPollNanos;
        if (nextWakeMs >= 0) {
            // the server read its clock about halfway through the round trip
            long untilNext = (nextWakeMs * 1000 - serverNowMicros) * 1000;
            next = Ticker.earlier(next, sent + (received - sent) / 2 + untilNext);
        }
        return claimed == 0 ? Ticker.later(next, received + MIN_IDLE_WAIT_NANOS) : next;
    }

    /**
     * The reading at which a job was due, from a claim's server time: the server read its clock about halfway
     * through the round trip. Far-past due times are cut to a century so the arithmetic cannot overflow.
     */
    public static long dueReading(long dueEpochMs, long sent, long received, long serverNowMicros) {
        long lateMs = Math.min(MAX_LATE_MILLIS, serverNowMicros / 1000 - dueEpochMs);
        return sent + (received - sent) / 2 - lateMs * 1_000_000L;
    }

    /**
     * How long a worker waits before it looks again at a queue its last look found empty (nothing due, nothing
     * in flight, no schedules): twice the fallback poll. Every enqueue into an empty queue publishes a wake
     * notice, which ends the wait at once; the look is the net for a notice lost on a connection that died
     * without the client noticing, and costs one {@code EXISTS}.
     */
    public long emptyPollNanos() {
        return fallbackPollNanos * 2;
    }

    /** The pause after a failed call, given the previous pause (0 after a success). */
    public long nextErrorPause(long pauseNanos) {
        return pauseNanos == 0
                ? FIRST_ERROR_PAUSE_NANOS
                : Math.min(pauseNanos * 2, Math.max(fallbackPollNanos, TimeUnit.SECONDS.toNanos(1)));
    }

    /**
     * Until when an idle dispatcher sleeps: the fallback poll, or earlier the first moment it has something to
     * do. Each {@code has…} flag says whether the reading beside it counts.
     *
     * @param now the current reading
     * @param pauseUntil no Redis call before this (after a failure)
     * @param resending a failed claim waits to be resent (at {@code pauseUntil})
     * @param mayClaim the handlers have room for a claim (at {@code nextClaimAt})
     * @param nextClaimAt when the next claim is due
     * @param hasAck an ack is pending
     * @param ackSendAt when the oldest pending ack is sent
     * @param hasBuffered a job waits in the buffer
     * @param bufferedStaleAt when the oldest buffered job becomes stale
     */
    public long sleepUntil(
            long now,
            long pauseUntil,
            boolean resending,
            boolean mayClaim,
            long nextClaimAt,
            boolean hasAck,
            long ackSendAt,
            boolean hasBuffered,
            long bufferedStaleAt) {
        long until = now + fallbackPollNanos;
        if (resending) {
            until = Ticker.earlier(until, pauseUntil);
        }
        if (mayClaim) {
            until = Ticker.earlier(until, Ticker.later(nextClaimAt, pauseUntil));
        }
        if (hasAck) {
            until = Ticker.earlier(until, Ticker.later(ackSendAt, pauseUntil));
        }
        if (hasBuffered) {
            until = Ticker.earlier(until, bufferedStaleAt);
        }
        return until;
    }
}
