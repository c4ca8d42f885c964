package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The renewal mechanism on a fake clock: ticks are driven by hand, no thread, no Redis. */
final class RunningJobRenewerTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<List<String>> calls = new ArrayList<>();
    private final List<String> lost = new ArrayList<>();
    private Set<String> refuse = Set.of();

    private RunningJobRenewer<String> renewer(Duration maxRun, boolean interrupt) {
        return new RunningJobRenewer<>(
                "q",
                Duration.ofMillis(100),
                maxRun,
                jobs -> {
                    calls.add(List.copyOf(jobs));
                    List<Boolean> out = new ArrayList<>();
                    for (String j : jobs) {
                        out.add(!refuse.contains(j));
                    }
                    return out;
                },
                lost::add,
                interrupt,
                now::get);
    }

    @Test
    void tick_manyRunningJobs_oneCallRenewsAll() {
        RunningJobRenewer<String> r = renewer(null, false);
        r.register("a", null);
        r.register("b", null);
        r.register("c", null);
        assertThat(r.tick()).isEqualTo(3);
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0)).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(lost).isEmpty();
    }

    @Test
    void tick_nothingRunning_noCall() {
        RunningJobRenewer<String> r = renewer(null, false);
        RunningJobRenewer.Registration<String> a = r.register("a", null);
        r.unregister(a);
        assertThat(r.tick()).isZero();
        assertThat(calls).isEmpty();
    }

    @Test
    void tick_runOlderThanMaxRun_noLongerRenewed() {
        RunningJobRenewer<String> r = renewer(Duration.ofMillis(500), false);
        r.register("old", null);
        now.addAndGet(Duration.ofMillis(300).toNanos());
        r.register("young", null);
        assertThat(r.tick()).isEqualTo(2);
        now.addAndGet(Duration.ofMillis(200).toNanos()); // "old" has run 500 ms: its limit
        assertThat(r.tick()).isEqualTo(1);
        assertThat(calls.get(1)).containsExactly("young");
        now.addAndGet(Duration.ofMillis(300).toNanos());
        assertThat(r.tick()).isZero();
        assertThat(r.size()).isZero();
        assertThat(lost).isEmpty(); // dropped, not lost: its claim simply runs out
    }

    @Test
    void tick_renewalRefused_reportedOnceInterruptedAndDropped() throws InterruptedException {
        RunningJobRenewer<String> r = renewer(null, true);
        Thread runner = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException expected) {
                // the renewer interrupted it
            }
        });
        runner.start();
        r.register("gone", runner);
        r.register("fine", null);
        refuse = Set.of("gone");
        r.tick();
        runner.join(10_000);
        assertThat(runner.isAlive()).as("interrupted").isFalse();
        assertThat(lost).containsExactly("gone");
        r.tick();
        assertThat(lost).containsExactly("gone");
        assertThat(calls.get(1)).containsExactly("fine");
    }

    @Test
    void tick_refusedAfterTheRunEnded_notReported() {
        RunningJobRenewer<String> r = renewer(null, true);
        RunningJobRenewer.Registration<String> a = r.register("a", Thread.currentThread());
        refuse = Set.of("a");
        r.unregister(a);
        r.tick();
        assertThat(lost).isEmpty();
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void tick_callFails_triedAgainNextTick() {
        List<Integer> sizes = new ArrayList<>();
        boolean[] fail = {true};
        RunningJobRenewer<String> r = new RunningJobRenewer<>(
                "q",
                Duration.ofMillis(100),
                null,
                jobs -> {
                    sizes.add(jobs.size());
                    if (fail[0]) {
                        throw new IllegalStateException("redis down");
                    }
                    return jobs.stream().map(j -> true).toList();
                },
                lost::add,
                false,
                now::get);
        r.register("a", null);
        r.tick();
        fail[0] = false;
        r.tick();
        assertThat(sizes).containsExactly(1, 1);
        assertThat(lost).isEmpty();
        assertThat(r.size()).isEqualTo(1);
    }
}
