package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.EnqueueResult.Outcome;
import io.github.deferlock.delay.NewJob.Replace;
import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Replace and debounce ({@link NewJob#replacing}, {@link NewJob#debounce}) on a standalone server and a cluster:
 * a waiting job is replaced in the enqueue script, a claimed or dead one never, and the result says which case
 * happened.
 */
final class EnqueueReplaceIT {

    @Nested
    final class Standalone extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }

    abstract static class Contract extends TopologyContract {
        private DelayQueue<Msg> queue() {
            return DelayQueue.builder(redis, "replacing", Msg.class).build();
        }

        @Test
        void replace_waitingJob_takesTheNewPayloadAndDueTime_keepingOneJob() {
            DelayQueue<Msg> q = queue();
            assertThat(q.enqueue("r", new Msg("old", 1), Duration.ofHours(1)).outcome())
                    .isEqualTo(Outcome.ADDED);
            EnqueueResult plain = q.enqueue("r", new Msg("ignored", 2), Duration.ZERO);
            assertThat(plain.outcome()).isEqualTo(Outcome.DUPLICATE);
            assertThat(plain.duplicate()).isTrue();

            Instant before = ServerTime.now(redis);
            EnqueueResult r = q.enqueueJob(
                    NewJob.of("r", new Msg("new", 3), Duration.ZERO).replacing(Replace.PAYLOAD_AND_DUE_TIME));
            assertThat(r.outcome()).isEqualTo(Outcome.REPLACED);
            assertThat(r.replaced()).isTrue();
            assertThat(r.duplicate()).isFalse();
            assertThat(r.dueAt()).isBetween(before.minusSeconds(1), before.plusSeconds(5));
            assertThat(q.size(JobState.DUE)).isEqualTo(1);
            List<Job<Msg>> claimed = q.claim(10);
            assertThat(claimed).singleElement().satisfies(j -> {
                assertThat(j.id()).isEqualTo("r");
                assertThat(j.payload()).isEqualTo(new Msg("new", 3));
                assertThat(j.attempts()).isEqualTo(1);
            });
            assertThat(q.stats().enqueued()).as("a replace is not a new job").isEqualTo(1);
        }

        @Test
        void replacePayload_keepsTheDueTime_andReplaceDueTime_keepsThePayload() {
            DelayQueue<Msg> q = queue();
            Instant due = q.enqueue("p", new Msg("old", 1), Duration.ofHours(1)).dueAt();
            EnqueueResult payloadOnly = q.enqueueJob(
                    NewJob.of("p", new Msg("new", 2), Duration.ZERO).replacing(Replace.PAYLOAD));
            assertThat(payloadOnly.outcome()).isEqualTo(Outcome.REPLACED);
            assertThat(payloadOnly.dueAt()).isEqualTo(due);
            assertThat(q.get("p").orElseThrow().dueAt()).contains(due);
            assertThat(q.claim(1)).isEmpty(); // still an hour away

            Instant later = due.plus(Duration.ofHours(1));
            EnqueueResult at =
                    q.enqueueJob(NewJob.at("p", new Msg("ignored", 3), later).replacing(Replace.DUE_TIME));
            assertThat(at.outcome()).isEqualTo(Outcome.REPLACED);
            assertThat(at.dueAt()).isEqualTo(later);
            assertThat(q.get("p").orElseThrow().dueAt()).contains(later);

            EnqueueResult timeOnly = q.enqueueJob(
                    NewJob.of("p", new Msg("ignored", 3), Duration.ZERO).replacing(Replace.DUE_TIME));
            assertThat(timeOnly.outcome()).isEqualTo(Outcome.REPLACED);
            assertThat(timeOnly.dueAt()).isBefore(due);
            assertThat(q.claim(1)).singleElement().satisfies(j -> assertThat(j.payload())
                    .isEqualTo(new Msg("new", 2)));
        }

        @Test
        void replace_claimedJob_isNeverReplacedUnderItsRunner_norADeadOne() {
            DelayQueue<Msg> q = queue();
            q.enqueue("c", new Msg("running", 1), Duration.ZERO);
            Job<Msg> job = q.claim(1).get(0);
            EnqueueResult r = q.enqueueJob(NewJob.debounce("c", new Msg("new", 2), Duration.ZERO));
            assertThat(r.outcome()).isEqualTo(Outcome.RUNNING);
            assertThat(r.duplicate()).isTrue();
            assertThat(r.dueAt()).isNull();
            JobInfo info = q.get("c").orElseThrow();
            assertThat(info.state()).isEqualTo(JobState.IN_FLIGHT);
            assertThat(q.ack(job)).as("the runner's receipt still holds").isTrue();

            q.enqueue("d", new Msg("dying", 1), Duration.ZERO);
            assertThat(q.deadLetter(q.claim(1).get(0), "no")).isTrue();
            EnqueueResult dead = q.enqueueJob(
                    NewJob.of("d", new Msg("new", 2), Duration.ZERO).replacing(Replace.PAYLOAD_AND_DUE_TIME));
            assertThat(dead.outcome()).isEqualTo(Outcome.DEAD);
            assertThat(q.get("d").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(q.deadLetters().list(1).get(0).payloadJson()).contains("dying");
        }

        @Test
        void enqueueAll_mixesNewDuplicateAndReplacedJobs_inOneCall() {
            DelayQueue<Msg> q = queue();
            q.enqueue("a", new Msg("a", 1), Duration.ofHours(1));
            q.enqueue("b", new Msg("b", 1), Duration.ofHours(1));
            List<EnqueueResult> results = q.enqueueAll(List.of(
                    NewJob.of("a", new Msg("a", 2), Duration.ZERO).replacing(Replace.PAYLOAD_AND_DUE_TIME),
                    NewJob.of("b", new Msg("b", 2), Duration.ZERO),
                    NewJob.of("c", new Msg("c", 1), Duration.ZERO).replacing(Replace.PAYLOAD),
                    NewJob.of("a", new Msg("a", 3), Duration.ZERO).replacing(Replace.PAYLOAD)));
            assertThat(results)
                    .extracting(EnqueueResult::outcome)
                    .containsExactly(Outcome.REPLACED, Outcome.DUPLICATE, Outcome.ADDED, Outcome.REPLACED);
            assertThat(q.claim(10))
                    .extracting(Job::payload)
                    .containsExactlyInAnyOrder(new Msg("a", 3), new Msg("c", 1));
        }

        @Test
        void debounce_burstOfCalls_runsOnceWithTheLastPayload_aWindowAfterTheLastCall() {
            DelayQueue<Msg> q = queue();
            Duration window = Duration.ofMillis(400);
            List<Job<Msg>> runs = new CopyOnWriteArrayList<>();
            List<Instant> ranAt = new CopyOnWriteArrayList<>();
            EnqueueResult last = null;
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        ranAt.add(ServerTime.now(redis));
                        runs.add(job);
                    })
                    .build()
                    .start()) {
                for (int i = 0; i < 5; i++) {
                    last = q.enqueueJob(NewJob.debounce("reindex-42", new Msg("edit", i), window));
                    assertThat(last.outcome()).isEqualTo(i == 0 ? Outcome.ADDED : Outcome.REPLACED);
                    // the due time moves out with each call (server clock)
                    assertThat(q.get("reindex-42").orElseThrow().dueAt()).contains(last.dueAt());
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 1);
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(runs).singleElement().satisfies(j -> assertThat(j.payload())
                    .isEqualTo(new Msg("edit", 4)));
            assertThat(ranAt.get(0)).isAfterOrEqualTo(last.dueAt());
        }

        @Test
        void replace_makingAJobTheEarliest_wakesAnIdleWorker() {
            DelayQueue<Msg> q = queue();
            List<Instant> ran = new CopyOnWriteArrayList<>();
            q.enqueue("w", new Msg("later", 1), Duration.ofHours(1));
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> ran.add(Instant.now()))
                    .fallbackPoll(Duration.ofSeconds(10))
                    .build()
                    .start()) {
                await().pollDelay(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> true);
                Instant sent = Instant.now();
                q.enqueueJob(NewJob.of("w", new Msg("now", 2), Duration.ZERO).replacing(Replace.DUE_TIME));
                await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 1);
                assertThat(Duration.between(sent, ran.get(0))).isLessThan(Duration.ofSeconds(3));
                assertThat(worker.isRunning()).isTrue();
            }
        }

        @Test
        void replace_needsACallerId() {
            assertThatThrownBy(() -> NewJob.of(new Msg("x", 1)).replacing(Replace.PAYLOAD))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("caller id");
        }
    }
}
