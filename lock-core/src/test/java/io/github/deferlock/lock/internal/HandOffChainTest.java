package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

final class HandOffChainTest {
    private static final long LEASE_NANOS = Duration.ofSeconds(30).toNanos();

    private final FakeClock clock = new FakeClock();
    private final KeyState st = new KeyState("k", "lock:{k}".getBytes(StandardCharsets.UTF_8));

    /** A watchdog hold of the block [first, first + BLOCK - 1], acquired now. */
    private Hold watchdogHold(long first) {
        return new Hold(
                clock,
                h -> {},
                st,
                new byte[] {'t'},
                first,
                first + HandOffChain.BLOCK - 1,
                clock.nanoTime(),
                LEASE_NANOS,
                true);
    }

    @Test
    void allows_aFreshWatchdogHold() {
        assertThat(HandOffChain.allows(watchdogHold(1), clock.nanoTime())).isTrue();
    }

    @Test
    void allows_notAnExplicitLeaseHold() {
        Hold fixed = new Hold(clock, h -> {}, st, new byte[] {'t'}, 1, 1, clock.nanoTime(), LEASE_NANOS, false);
        assertThat(HandOffChain.allows(fixed, clock.nanoTime())).isFalse();
    }

    @Test
    void allows_onlyWhileTheBlockHasTokensLeft() {
        Hold h = watchdogHold(1);
        int handOffs = 0;
        while (HandOffChain.allows(h, clock.nanoTime())) {
            h = h.successor(clock.nanoTime());
            handOffs++;
        }
        assertThat(handOffs).isEqualTo(HandOffChain.BLOCK - 1);
        assertThat(h.fencingToken).isEqualTo(h.fenceLimit);
    }

    @Test
    void allows_notOnceTheChainIsOlderThanItsLimit() {
        Hold h = watchdogHold(1);
        clock.advance(Duration.ofNanos(HandOffChain.MAX_AGE_NANOS - 1));
        Hold next = h.successor(clock.nanoTime());
        assertThat(HandOffChain.allows(next, clock.nanoTime())).isTrue();
        clock.advance(Duration.ofNanos(1));
        assertThat(HandOffChain.allows(next, clock.nanoTime())).isFalse();
        assertThat(next.chainStart).isEqualTo(h.chainStart);
    }

    @Test
    void allows_notWithLessThanHalfALeaseOfValidityLeft() {
        Hold h = new Hold(
                clock,
                x -> {},
                st,
                new byte[] {'t'},
                1,
                HandOffChain.BLOCK,
                clock.nanoTime() - LEASE_NANOS / 2 - 1, // sent long ago, no renewal since
                LEASE_NANOS,
                true);
        // the chain's age counts from the same send, so look at it with a chain that is still young
        assertThat(h.validUntil() - clock.nanoTime()).isLessThan(LEASE_NANOS / 2);
        assertThat(HandOffChain.allows(h, clock.nanoTime())).isFalse();
    }

    @Test
    void successor_keepsTheTokenAndValidity_andARenewalOfTheOldHoldReachesIt() {
        Hold h = watchdogHold(1);
        Hold next = h.successor(clock.nanoTime());
        assertThat(next.token).isSameAs(h.token);
        assertThat(next.fencingToken).isEqualTo(2);
        assertThat(next.validUntil()).isEqualTo(h.validUntil());
        clock.advance(Duration.ofSeconds(10));
        h.renewedAt(clock.nanoTime());
        assertThat(next.validUntil()).isEqualTo(clock.nanoTime() + LEASE_NANOS);
    }

    @Test
    void successor_refusedAfterALossWasReportedForTheFinishedHold() {
        Hold h = watchdogHold(1);
        h.finish();
        assertThat(h.lostSuccessor(new IllegalStateException("refused"))).isNull();
        assertThat(h.successor(clock.nanoTime())).isNull();
    }

    @Test
    void handAndTake_theSlotHoldsOneHoldForTheNextThroughTheGate() {
        HandOffChain chain = st.handOff;
        assertThat(chain.take()).isNull();
        Hold next = watchdogHold(1).successor(clock.nanoTime());
        chain.hand(next);
        assertThat(chain.take()).isSameAs(next);
        assertThat(chain.take()).isNull();
    }
}
