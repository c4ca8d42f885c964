package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.internal.RunningJobRenewer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One job's run and settlement on a fake clock, against recorded queue calls: what is settled, what is told. */
final class JobRunnerTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(50 * MS);
    private final FakeCalls calls = new FakeCalls();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final QueueListener listener = new QueueListener() {
        @Override
        public void onHandled(String queue, String jobId, Duration runTime, Duration lateness) {
            events.add("handled " + jobId + " " + runTime.toMillis() + " ms, " + lateness.toMillis() + " ms late");
        }

        @Override
        public void onFailed(String queue, String jobId, int attempt, Throwable error, boolean willRetry) {
            events.add("failed " + jobId + " attempt " + attempt + (willRetry ? ", will retry" : ", no retry"));
        }

        @Override
        public void onDeadLettered(String queue, String jobId, String reason) {
            events.add("dead-lettered " + jobId + ": " + reason);
        }

        @Override
        public void onClaimLost(String queue, String jobId) {
            events.add("claim lost " + jobId);
        }

        @Override
        public void onGivenBack(String queue, String jobId) {
            events.add("given back " + jobId);
        }
    };
    private final Settler<String> settler = new Settler<>(calls, listener, ms -> true);
    private final AckBatcher<String> acks = new AckBatcher<>(now::get, 5 * MS, true, settler, (s, f, full) -> {});
    private final RunningJobRenewer<Job<String>> renewer = new RunningJobRenewer<>(
            "fake",
            Duration.ofSeconds(10),
            null,
            calls::extendAll,
            job -> JobRunner.claimLost(job, listener, "fake"),
            false,
            now::get);
    private final AtomicBoolean closed = new AtomicBoolean();

    private JobRunner<String> runner(JobHandler<String> handler) {
        return new JobRunner<>("fake", 3, handler, renewer, settler, acks, listener, now::get, closed::get);
    }

    @Test
    void run_handlerReturns_ackQueuedAndHandledToldWithRunTimeAndLateness() {
        JobRunner<String> r = runner(job -> now.addAndGet(30 * MS));
        r.run(FakeCalls.job("a", 1), 50 * MS, 40 * MS); // due 10 ms before it started
        assertThat(events).containsExactly("handled a 30 ms, 10 ms late");
        assertThat(acks.size()).isEqualTo(1);
        assertThat(renewer.size()).as("no longer renewed").isZero();
    }

    @Test
    void run_startedBeforeItsDueReading_latenessZero() {
        runner(job -> {}).run(FakeCalls.job("a", 1), 50 * MS, 60 * MS);
        assertThat(events).containsExactly("handled a 0 ms, 0 ms late");
    }

    @Test
    void run_handlerThrowsWithAttemptsLeft_nackedFailedWillRetry() {
        runner(job -> {
                    throw new IllegalStateException("boom");
                })
                .run(FakeCalls.job("a", 2), now.get(), now.get());
        assertThat(calls.calls("nack")).hasSize(1);
        assertThat(events).containsExactly("failed a attempt 2, will retry");
        assertThat(acks.size()).isZero();
    }

    @Test
    void run_handlerThrowsOnTheLastAttempt_failedAndDeadLettered() {
        runner(job -> {
                    throw new IllegalStateException("boom");
                })
                .run(FakeCalls.job("a", 3), now.get(), now.get());
        assertThat(events)
                .containsExactly(
                        "failed a attempt 3, no retry", "dead-lettered a: java.lang.IllegalStateException: boom");
    }

    @Test
    void run_nackRefused_nothingTold() {
        calls.stale.add("a");
        runner(job -> {
                    throw new IllegalStateException("boom");
                })
                .run(FakeCalls.job("a", 3), now.get(), now.get());
        assertThat(events).isEmpty();
    }

    @Test
    void run_handlerSettledTheJobItself_leftAlone() {
        runner(Job::markSettled).run(FakeCalls.job("a", 1), now.get(), now.get());
        assertThat(events).isEmpty();
        assertThat(calls.calls).isEmpty();
        assertThat(acks.size()).isZero();
    }

    @Test
    void run_claimLostWhileRunning_noSettlementNoHandledEvent() {
        runner(job -> {
                    calls.stale.add(job.id());
                    renewer.tick(); // the renewal is refused
                })
                .run(FakeCalls.job("a", 1), now.get(), now.get());
        assertThat(events).containsExactly("claim lost a");
        assertThat(calls.calls).extracting(FakeCalls.Call::op).containsExactly("extend");
        assertThat(acks.size()).isZero();
    }

    @Test
    void run_interruptedByClose_givenBackWithoutAnAttempt() {
        closed.set(true);
        runner(job -> {
                    throw new InterruptedException();
                })
                .run(FakeCalls.job("a", 1), now.get(), now.get());
        Thread.interrupted();
        assertThat(events).containsExactly("given back a");
        assertThat(calls.calls).extracting(FakeCalls.Call::op).containsExactly("giveBack");
    }

    @Test
    void run_noListener_stillSettles() {
        JobRunner<String> quiet = new JobRunner<>(
                "fake", 3, job -> {}, renewer, settler, acks, QueueListener.NONE, now::get, closed::get);
        quiet.run(FakeCalls.job("a", 1), now.get(), now.get());
        assertThat(acks.size()).isEqualTo(1);
    }
}
