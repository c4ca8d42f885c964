package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.lock.LockLostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

final class ThreadBoundHoldTest {
    private final FakeClock clock = new FakeClock();
    private final KeyState st = new KeyState("k", "lock:{k}".getBytes(StandardCharsets.UTF_8));
    private final AtomicReference<Hold> released = new AtomicReference<>();

    private Hold hold(long leaseMillis) {
        return new Hold(
                clock, released::set, st, new byte[] {'t'}, 7, 7, clock.nanoTime(), leaseMillis * 1_000_000, false);
    }

    @Test
    void begin_reenter_countDown_lastCountReturnsTheHoldAndEndsOwnership() {
        ThreadBoundHold th = st.threadHold;
        Hold h = hold(30_000);
        assertThat(th.isOwnedByCurrentThread()).isFalse();
        th.begin(h);
        th.reenter();
        th.reenter();
        assertThat(th.isOwnedByCurrentThread()).isTrue();
        assertThat(th.count()).isEqualTo(3);
        assertThat(th.countDown()).isNull();
        assertThat(th.countDown()).isNull();
        assertThat(th.countDown()).isSameAs(h);
        assertThat(th.isOwnedByCurrentThread()).isFalse();
    }

    @Test
    void isOwnedByCurrentThread_isFalseForAnotherThread() throws Exception {
        st.threadHold.begin(hold(30_000));
        boolean other = CompletableFuture.supplyAsync(st.threadHold::isOwnedByCurrentThread)
                .get(5, TimeUnit.SECONDS);
        assertThat(other).isFalse();
    }

    @Test
    void reenter_afterTheLeaseRanOutByTheClock_throwsLost() {
        ThreadBoundHold th = st.threadHold;
        th.begin(hold(100));
        clock.advance(Duration.ofMillis(100));
        assertThatThrownBy(th::reenter).isInstanceOf(LockLostException.class).hasMessageContaining("lock:{k}");
        assertThat(th.count()).isEqualTo(1);
    }

    @Test
    void countDown_ofALostReentry_throwsButStillCountsDown() {
        ThreadBoundHold th = st.threadHold;
        Hold h = hold(30_000);
        th.begin(h);
        th.reenter();
        h.markLost(new IllegalStateException("renewal refused"));
        assertThatThrownBy(th::countDown).isInstanceOf(LockLostException.class);
        assertThat(th.count()).isEqualTo(1);
        assertThat(th.countDown()).isSameAs(h);
    }
}
