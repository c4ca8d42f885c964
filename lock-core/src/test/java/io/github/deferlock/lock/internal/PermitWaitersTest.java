package io.github.deferlock.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How a process's permit waiters share release notices ({@link PermitWaiters}). */
final class PermitWaitersTest {

    @Test
    void notice_wakesOnlyTheFirstWaiter() throws InterruptedException {
        PermitWaiters waiters = new PermitWaiters();
        PermitWaiters.Waiter first = waiters.join();
        PermitWaiters.Waiter second = waiters.join();
        waiters.wakeFirst();
        assertThat(second.pending()).isZero();
        assertThat(second.await(0)).isFalse();
        assertThat(first.await(TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(first.pending()).isZero();
    }

    @Test
    void twoNoticesBeforeTheFirstAsks_theSecondGoesToTheNextWaiterWhenTheFirstIsGranted() throws InterruptedException {
        PermitWaiters waiters = new PermitWaiters();
        PermitWaiters.Waiter first = waiters.join();
        PermitWaiters.Waiter second = waiters.join();
        waiters.wakeFirst(); // two permits freed at once: both notices reach this process's first waiter
        waiters.wakeFirst();
        assertThat(first.await(0)).isTrue(); // it asks once, and is granted
        first.leave();
        assertThat(second.pending()).isOne();
        assertThat(second.await(0)).isTrue();
        assertThat(waiters.size()).isOne();
    }

    @Test
    void refusedAfterAWakeUp_passesItToTheNextWaiter() throws InterruptedException {
        PermitWaiters waiters = new PermitWaiters();
        PermitWaiters.Waiter first = waiters.join();
        PermitWaiters.Waiter second = waiters.join();
        PermitWaiters.Waiter third = waiters.join();
        waiters.wakeFirst();
        assertThat(first.await(0)).isTrue();
        first.passOnOne(); // its request was refused: the notice was for a waiter behind it
        assertThat(second.await(0)).isTrue();
        assertThat(third.pending()).isZero();
        assertThat(first.pending()).isZero();
    }

    @Test
    void leavingWithoutUnusedWakeUps_givesNothing_andTheLastWaiterDropsWhatItHad() throws InterruptedException {
        PermitWaiters waiters = new PermitWaiters();
        PermitWaiters.Waiter first = waiters.join();
        PermitWaiters.Waiter second = waiters.join();
        first.leave();
        assertThat(second.pending()).isZero();
        waiters.wakeFirst();
        second.leave(); // no one after it: the wake-up has nobody to go to
        assertThat(waiters.size()).isZero();
        waiters.wakeFirst(); // nobody waits: nothing happens
        second.leave(); // idempotent
    }

    @Test
    void await_wakesAWaitingThread() throws Exception {
        PermitWaiters waiters = new PermitWaiters();
        PermitWaiters.Waiter first = waiters.join();
        boolean[] woken = {false};
        Thread t = new Thread(() -> {
            try {
                woken[0] = first.await(TimeUnit.SECONDS.toNanos(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        waiters.wakeFirst();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(t.isAlive()).isFalse();
        assertThat(woken[0]).isTrue();
    }
}
