package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.internal.ClaimPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher loop driven one round at a time on the test thread, on a fake clock, against recorded queue
 * calls. Its idle waits are real but short (a 20 ms fallback poll); its decisions use only the fake clock.
 */
final class DispatcherLoopTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(-3 * MS);
    private final FakeCalls calls = new FakeCalls();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final QueueListener listener = new QueueListener() {
        @Override
        public void onClaimed(String queue, String jobId, int attempt) {
            events.add("claimed " + jobId + " " + attempt);
        }

        @Override
        public void onGivenBack(String queue, String jobId) {
            events.add("given back " + jobId);
        }
    };
    private final Settler<String> settler = new Settler<>(calls, listener, ms -> true);
    private final ClaimPolicy policy = new ClaimPolicy(2, 10, Duration.ofSeconds(30), Duration.ofMillis(20));
    private final AckBatcher<String> acks = new AckBatcher<>(now::get, 5 * MS, true, settler, (s, f, full) -> {});
    private final HandlerPool<String> pool = new HandlerPool<>(
            "fake",
            policy,
            now::get,
            new HandlerPool.Runner<>() {
                @Override
                public void run(Job<String> job, long start, long due) {}

                @Override
                public void giveBackStale(Job<String> job) {}
            },
            () -> {},
            "test",
            false);
    private final DispatcherLoop<String> loop =
            new DispatcherLoop<>(calls, policy, pool, acks, settler, listener, now::get, "test-dispatcher");

    @AfterEach
    void shutdown() {
        pool.close();
        pool.shutdownNow();
    }

    @Test
    void step_firstRound_claimsTheFreeThreadsAtOnce() {
        loop.startHere();
        assertThat(loop.step()).isTrue();
        assertThat(calls.calls("claim")).extracting(FakeCalls.Call::max).containsExactly(2);
    }

    @Test
    void step_failedClaim_resentAfterThePauseAsTheSameCall() {
        loop.startHere();
        acks.add(FakeCalls.job("done", 1));
        calls.failures.add(new DelayQueueException("down"));
        loop.step(); // the claim carries the ack, and fails
        loop.step(); // within the 50 ms pause: no call
        assertThat(calls.calls("claim")).hasSize(1);
        now.addAndGet(50 * MS);
        loop.step();
        List<FakeCalls.Call> claims = calls.calls("claim");
        assertThat(claims).hasSize(2);
        assertThat(claims.get(1)).isEqualTo(claims.get(0));
        assertThat(claims.get(1).jobIds()).containsExactly("done");
        assertThat(calls.calls("ackAll")).isEmpty();
    }

    @Test
    void step_ackWaitsTheAckDelay_thenGoesAloneWhenNoClaimIsDue() {
        loop.startHere();
        loop.step(); // claims nothing: the next claim after the 20 ms fallback poll
        acks.add(FakeCalls.job("done", 1));
        loop.step(); // the ack is 5 ms from due: sleeps
        assertThat(calls.calls("ackAll")).isEmpty();
        now.addAndGet(5 * MS);
        loop.step();
        assertThat(calls.calls("ackAll")).extracting(FakeCalls.Call::jobIds).containsExactly(List.of("done"));
        assertThat(calls.calls("claim")).hasSize(1);
    }

    @Test
    void step_claimedJobs_toldToTheListenerAndBuffered() {
        calls.claims.add(List.of(FakeCalls.job("a", 1), FakeCalls.job("b", 3)));
        loop.startHere();
        loop.step();
        assertThat(events).containsExactly("claimed a 1", "claimed b 3");
    }

    @Test
    void step_claimAnsweredAfterClose_jobsGivenBack() {
        calls.claims.add(List.of(FakeCalls.job("a", 1), FakeCalls.job("b", 1)));
        pool.close();
        loop.startHere();
        loop.step();
        assertThat(events).containsExactly("claimed a 1", "claimed b 1", "given back a", "given back b");
        assertThat(calls.calls("giveBack")).hasSize(2);
    }

    @Test
    void step_nothingToDo_sleepsAndCountsTheRound() {
        loop.startHere();
        loop.step();
        long before = loop.rounds();
        loop.step();
        assertThat(loop.rounds()).isEqualTo(before + 1);
        assertThat(calls.calls("claim")).as("no claim before the fallback poll").hasSize(1);
    }

    @Test
    void stop_endsTheLoop() {
        loop.startHere();
        loop.stop();
        assertThat(loop.step()).isFalse();
    }
}
