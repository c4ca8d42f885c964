package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The claim policy on numbers alone: readings of a fake clock and the worker's counters. */
final class ClaimPolicyTest {
    private static final long MS = 1_000_000L;
    // visibility 30 s: start window 1 s (capped), stale after 15 s
    private final ClaimPolicy policy = new ClaimPolicy(4, 20, Duration.ofSeconds(30), Duration.ofSeconds(1));

    @Test
    void claimSize_beforeTheFirstRunFinished_onlyFreeThreads() {
        assertThat(policy.claimSize(0, 0, -1, 0)).isEqualTo(4);
        assertThat(policy.claimSize(3, 0, -1, 0)).isEqualTo(1);
        assertThat(policy.claimSize(4, 0, -1, 0)).isZero();
    }

    @Test
    void claimSize_fastHandlers_claimAheadUpToBatchSize() {
        // 4 threads × 1 s window / 10 ms per run = 400 ahead, capped at the batch size
        assertThat(policy.claimSize(4, 0, 10 * MS, 0)).isEqualTo(20);
    }

    @Test
    void claimSize_handlersSlowerThanTheWindow_noClaimAhead() {
        // 4 threads × 1 s / 5 s per run: no job would start within the window
        assertThat(policy.claimSize(4, 0, 5_000 * MS, 0)).isZero();
        assertThat(policy.claimSize(1, 0, 5_000 * MS, 0)).isEqualTo(3);
    }

    @Test
    void claimSize_bufferMoreThanHalfTheAllowance_waits() {
        // 4 threads × 1 s / 200 ms = 20 ahead: claims again once at most 10 wait
        assertThat(policy.claimSize(15, 11, 200 * MS, 0)).isZero();
        assertThat(policy.claimSize(14, 10, 200 * MS, 0)).isEqualTo(10);
    }

    @Test
    void claimSize_stalledRuns_earnNoClaimAhead() {
        // 2 of 4 threads stuck: 2 × 1 s / 100 ms = 20 → still 20; 4 stuck: nothing ahead
        assertThat(policy.claimSize(4, 0, 100 * MS, 4)).isZero();
        assertThat(policy.claimSize(4, 0, 400 * MS, 2)).isEqualTo(5);
    }

    @Test
    void stallLimit_isTheWindowOrTwiceTheAverage() {
        assertThat(policy.stallLimitNanos(-1)).isEqualTo(1_000 * MS);
        assertThat(policy.stallLimitNanos(10 * MS)).isEqualTo(1_000 * MS);
        assertThat(policy.stallLimitNanos(800 * MS)).isEqualTo(1_600 * MS);
    }

    @Test
    void averageAfter_risesFastFallsSlowly() {
        assertThat(ClaimPolicy.averageAfter(-1, 80)).isEqualTo(80);
        assertThat(ClaimPolicy.averageAfter(80, 160)).isEqualTo(120);
        assertThat(ClaimPolicy.averageAfter(80, 0)).isEqualTo(70);
    }

    @Test
    void isStale_afterHalfTheVisibilityTimeout() {
        long claimed = -5 * MS; // readings may be negative
        assertThat(policy.isStale(claimed, claimed + 15_000 * MS)).isFalse();
        assertThat(policy.isStale(claimed, claimed + 15_000 * MS + 1)).isTrue();
        assertThat(policy.staleAt(claimed)).isEqualTo(claimed + 15_000 * MS + 1);
    }

    @Test
    void nextClaimAt_fullClaim_atOnce() {
        assertThat(policy.nextClaimAt(20, 20, 0, 3 * MS, 99, 0)).isEqualTo(3 * MS);
    }

    @Test
    void nextClaimAt_shortClaim_atTheNextDueTimeFromTheServerClock() {
        // server read its clock at 1_000_000 ms, next due at +250 ms; the call took 4 ms (server clock at 2 ms)
        long next = policy.nextClaimAt(20, 3, 10 * MS, 14 * MS, 1_000_250, 1_000_000_000L);
        assertThat(next).isEqualTo(12 * MS + 250 * MS);
    }

    @Test
    void nextClaimAt_nothingDueAnywhere_fallbackPoll() {
        assertThat(policy.nextClaimAt(20, 0, 0, 1 * MS, -1, 0)).isEqualTo(1_001 * MS);
    }

    @Test
    void nextClaimAt_emptyClaimWithADueJobAlreadyPast_notSoonerThan200Micros() {
        long next = policy.nextClaimAt(20, 0, 0, 1 * MS, 999, 1_000_000_000L);
        assertThat(next).isEqualTo(1 * MS + 200_000);
    }

    @Test
    void dueReading_placesTheDueTimeOnTheTicker() {
        // server clock 10_000 ms at the round trip's middle (reading 6 ms): due at 9_990 ms → reading -4 ms
        assertThat(ClaimPolicy.dueReading(9_990, 4 * MS, 8 * MS, 10_000_000L)).isEqualTo(-4 * MS);
        assertThat(ClaimPolicy.dueReading(Long.MIN_VALUE / 2, 0, 0, 10_000_000L))
                .as("a due time before 1970 cannot overflow")
                .isLessThan(0);
    }

    @Test
    void nextErrorPause_doublesFrom50MsUpToTheFallbackPollOr1s() {
        long p = policy.nextErrorPause(0);
        assertThat(p).isEqualTo(50 * MS);
        for (int i = 0; i < 10; i++) {
            p = policy.nextErrorPause(p);
        }
        assertThat(p).isEqualTo(1_000 * MS);
        ClaimPolicy slowPoll = new ClaimPolicy(1, 1, Duration.ofSeconds(30), Duration.ofSeconds(5));
        assertThat(slowPoll.nextErrorPause(4_000 * MS)).isEqualTo(5_000 * MS);
    }

    @Test
    void sleepUntil_theFirstThingToDo() {
        long now = 100 * MS;
        assertThat(policy.sleepUntil(now, 0, false, false, 0, false, 0, false, 0))
                .as("nothing to do: the fallback poll")
                .isEqualTo(1_100 * MS);
        assertThat(policy.sleepUntil(now, 0, false, true, 300 * MS, false, 0, false, 0))
                .as("the next claim")
                .isEqualTo(300 * MS);
        assertThat(policy.sleepUntil(now, 0, false, false, 300 * MS, false, 0, false, 0))
                .as("no room: the next claim does not count")
                .isEqualTo(1_100 * MS);
        assertThat(policy.sleepUntil(now, 500 * MS, false, true, 300 * MS, true, 200 * MS, false, 0))
                .as("after a failure nothing is sent before the pause ends")
                .isEqualTo(500 * MS);
        assertThat(policy.sleepUntil(now, 500 * MS, false, true, 300 * MS, true, 200 * MS, true, 400 * MS))
                .as("a buffered job going stale is given back without a pause")
                .isEqualTo(400 * MS);
        assertThat(policy.sleepUntil(now, 700 * MS, true, false, 0, false, 0, false, 0))
                .as("a resend at the pause's end")
                .isEqualTo(700 * MS);
    }

    @Test
    void defaultBatchSize_concurrencyWithin32And100() {
        assertThat(ClaimPolicy.defaultBatchSize(1)).isEqualTo(32);
        assertThat(ClaimPolicy.defaultBatchSize(64)).isEqualTo(64);
        assertThat(ClaimPolicy.defaultBatchSize(500)).isEqualTo(100);
    }
}
