package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

final class LocalGateTest {
    private final FakeClock clock = new FakeClock();
    private final LocalGate gate = new LocalGate();

    @Test
    void enter_zeroWait_triesOnce() throws Exception {
        assertThat(gate.enter(clock, clock.nanoTime(), 0, false)).isTrue();
        assertThat(gate.enter(clock, clock.nanoTime(), 0, false)).isFalse();
        gate.leave();
        assertThat(gate.tryEnter()).isTrue();
    }

    @Test
    void enter_deadlinePassedByTheClock_triesOnceWithoutWaiting() throws Exception {
        assertThat(gate.tryEnter()).isTrue();
        long start = clock.nanoTime();
        clock.advance(Duration.ofSeconds(2));
        long before = System.nanoTime();
        assertThat(gate.enter(clock, start, TimeUnit.SECONDS.toNanos(1), false)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofMillis(500));
    }

    @Test
    void leave_givesTheGateToTheLongestWaiter() throws Exception {
        assertThat(gate.tryEnter()).isTrue();
        List<Integer> order = new CopyOnWriteArrayList<>();
        Thread[] waiters = new Thread[3];
        for (int i = 0; i < waiters.length; i++) {
            int n = i;
            waiters[i] = new Thread(() -> {
                try {
                    gate.enter(clock, clock.nanoTime(), 0, true);
                    order.add(n);
                    gate.leave();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiters[i].start();
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(5)).until(() -> gate.queueLength() == queued);
        }
        assertThat(gate.hasWaiters()).isTrue();
        assertThat(gate.tryEnterUnqueued()).isFalse();
        gate.leave();
        for (Thread t : waiters) {
            t.join(5000);
        }
        assertThat(order).containsExactly(0, 1, 2);
        assertThat(gate.hasWaiters()).isFalse();
        assertThat(gate.tryEnterUnqueued()).isTrue();
    }
}
