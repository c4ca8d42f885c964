package io.github.deferlock.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueueException;
import io.github.deferlock.lock.LockException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The failure policy on a fake clock and a fake binding: the handle function plays a script of outcomes and
 * exceptions (what a {@code ConflictAwareHandler} returns or throws when Redis or the user's code fails), and the
 * test checks attempts, waits, listener events and the result.
 */
final class DeliveryRunnerTest {
    private final AtomicLong now = new AtomicLong();
    private final List<Duration> sleeps = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final Sleeper sleeper = d -> {
        sleeps.add(d);
        now.addAndGet(d.toNanos());
    };

    private DeliveryRunner<String> runner(int maxAttempts, Deque<Supplier<Outcome>> script) {
        ConsumerListener l = new ConsumerListener() {
            @Override
            public void onFailed(String id, int attempt, Throwable error) {
                events.add("failed " + attempt);
            }

            @Override
            public void onRedisUnavailable(String id, Throwable error) {
                events.add("redis");
            }

            @Override
            public void onHandled(String id, Outcome outcome, Duration took) {
                events.add("handled " + outcome);
            }
        };
        OutageGate gate = new OutageGate(
                Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5), 2.0), sleeper, now::get);
        return new DeliveryRunner<>(
                m -> script.pop().get(),
                maxAttempts,
                Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0),
                new GuardedListener<>(l),
                "test",
                gate,
                sleeper,
                now::get);
    }

    private static Supplier<Outcome> fails(RuntimeException e) {
        return () -> {
            throw e;
        };
    }

    private static Supplier<Outcome> returns(Outcome o) {
        return () -> o;
    }

    private static long total(List<Duration> ds) {
        return ds.stream().mapToLong(Duration::toMillis).sum();
    }

    @Test
    void redisOutage_costsNoAttempt_andNeverDeadLetters() {
        Deque<Supplier<Outcome>> script = new ArrayDeque<>();
        for (int i = 0; i < 50; i++) {
            script.add(fails(new LockException("cannot acquire lock", new JedisConnectionException("refused"))));
        }
        script.add(fails(new DelayQueueException("enqueue failed", new JedisConnectionException("Failed to connect"))));
        script.add(fails(new JedisDataException("LOADING Redis is loading the dataset in memory")));
        script.add(returns(Outcome.DEFERRED));
        DeliveryRunner.Result r = runner(2, script).run("m", "id", 1, () -> true);

        assertThat(r).isEqualTo(new DeliveryRunner.Result.Handled(Outcome.DEFERRED));
        assertThat(events).doesNotContain("failed 1").endsWith("redis", "handled DEFERRED");
        assertThat(events.stream().filter("redis"::equals)).hasSize(52);
        // it waited with a backoff that grew to its 5 s cap: no spin
        assertThat(total(sleeps)).isGreaterThan(50 * 4_000L);
    }

    @Test
    void handlerFailure_usesAttempts_withTheRetryBackoff_thenDeadLetters() {
        Deque<Supplier<Outcome>> script = new ArrayDeque<>();
        for (int i = 0; i < 3; i++) {
            script.add(fails(new IllegalStateException("boom")));
        }
        DeliveryRunner.Result r = runner(3, script).run("m", "id", 1, () -> true);

        assertThat(r).isInstanceOf(DeliveryRunner.Result.DeadLetter.class);
        assertThat(((DeliveryRunner.Result.DeadLetter) r).reason()).contains("failed on attempt 3 of 3", "boom");
        assertThat(events).containsExactly("failed 1", "failed 2", "failed 3");
        assertThat(total(sleeps)).isEqualTo(100 + 200);
    }

    @Test
    void aRedeliveredMessage_startsAtItsAttempt_andOnePastTheLimitIsDeadLetteredWithoutRunning() {
        Deque<Supplier<Outcome>> script = new ArrayDeque<>();
        script.add(fails(new IllegalStateException("boom")));
        assertThat(runner(3, script).run("m", "id", 3, () -> true))
                .isInstanceOf(DeliveryRunner.Result.DeadLetter.class);
        assertThat(events).containsExactly("failed 3");
        events.clear();
        DeliveryRunner.Result r = runner(3, new ArrayDeque<>()).run("m", "id", 4, () -> true);
        assertThat(((DeliveryRunner.Result.DeadLetter) r).reason()).contains("delivered 4 times");
        assertThat(events).isEmpty();
    }

    @Test
    void closing_letsGoOfAMessageWaitingForRedis() {
        Deque<Supplier<Outcome>> script = new ArrayDeque<>();
        script.add(fails(new JedisConnectionException("refused")));
        boolean[] keepGoing = {true};
        Sleeper stopping = d -> {
            now.addAndGet(d.toNanos());
            keepGoing[0] = false;
        };
        GuardedListener<ConsumerListener> l = new GuardedListener<>(new ConsumerListener() {});
        OutageGate gate = new OutageGate(Backoff.fixed(Duration.ofSeconds(1)), stopping, now::get);
        DeliveryRunner<String> runner = new DeliveryRunner<>(
                m -> script.pop().get(), 5, Backoff.fixed(Duration.ofSeconds(1)), l, "test", gate, stopping, now::get);

        assertThat(runner.run("m", "id", 1, () -> keepGoing[0])).isInstanceOf(DeliveryRunner.Result.Abandoned.class);
    }

    @Test
    void failures_areToldApart_throughTheirCauses() {
        assertThat(Failures.isInfrastructure(new JedisConnectionException("x"))).isTrue();
        assertThat(Failures.isInfrastructure(new LockException("y", new JedisConnectionException("x"))))
                .isTrue();
        assertThat(Failures.isInfrastructure(new DelayQueueException("y", new JedisConnectionException("x"))))
                .isTrue();
        assertThat(Failures.isInfrastructure(new JedisDataException("READONLY You can't write against a replica")))
                .isTrue();
        assertThat(Failures.isInfrastructure(new JedisDataException("WRONGTYPE Operation")))
                .isFalse();
        assertThat(Failures.isInfrastructure(new LockException("cannot acquire lock")))
                .isFalse();
        assertThat(Failures.isInfrastructure(new IllegalStateException("boom"))).isFalse();
    }
}
