package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.EnqueueResult.Outcome;
import io.github.deferlock.delay.NewJob.Replace;
import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Priorities ({@link NewJob#withPriority}) on a standalone server, a cluster and a Sentinel group: among due jobs the highest
 * priority is claimed first and equal priorities in due order; a job not yet due holds nothing back; a job keeps
 * its priority through retries, reschedules, visibility timeouts and a requeue; queues without priorities write no
 * level keys.
 */
final class QueuePriorityIT {

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
        private static final String LEVELS = "deferlock:dq:{prio}:due:levels";

        private DelayQueue<Msg> queue() {
            return DelayQueue.builder(redis, "prio", Msg.class).build();
        }

        private static NewJob<Msg> job(String id, int priority, Instant at) {
            return NewJob.at(id, new Msg(id, priority), at).withPriority(priority);
        }

        private static List<String> ids(List<Job<Msg>> jobs) {
            return jobs.stream().map(Job::id).toList();
        }

        @Test
        void claim_takesTheHighestPriorityFirst_andEqualPrioritiesInDueOrder() {
            DelayQueue<Msg> q = queue();
            Instant t = Instant.now().minusSeconds(60);
            // one by one, and in a batch: due times and priorities scrambled
            q.enqueueJob(job("p0-late", 0, t.plusSeconds(3)));
            q.enqueueJob(job("p5-late", 5, t.plusSeconds(2)));
            q.enqueueJob(job("p0-early", 0, t));
            q.enqueueAll(List.of(
                    job("p9", 9, t.plusSeconds(5)),
                    job("p5-early", 5, t.plusSeconds(1)),
                    job("p1", 1, t),
                    job("p5-same-a", 5, t.plusSeconds(4)),
                    job("p5-same-b", 5, t.plusSeconds(4))));

            List<String> order = new ArrayList<>(ids(q.claim(3)));
            order.addAll(ids(q.claim(100)));

            assertThat(order)
                    .containsExactly(
                            "p9", "p5-early", "p5-late", "p5-same-a", "p5-same-b", "p1", "p0-early", "p0-late");
            Job<Msg> none = q.claim(1).stream().findFirst().orElse(null);
            assertThat(none).isNull();
        }

        @Test
        void aHigherPriorityJobNotYetDue_holdsBackNoDueJob() {
            DelayQueue<Msg> q = queue();
            q.enqueueJob(
                    NewJob.of("later", new Msg("later", 9), Duration.ofHours(1)).withPriority(9));
            q.enqueueJob(NewJob.of("now", new Msg("now", 0), Duration.ZERO));
            q.enqueueJob(NewJob.of("now-3", new Msg("now-3", 3), Duration.ZERO).withPriority(3));

            assertThat(ids(q.claim(10))).containsExactly("now-3", "now");
            QueueStats stats = q.stats();
            assertThat(stats.waiting()).isEqualTo(1);
            assertThat(stats.due()).isZero();
            assertThat(q.size(JobState.DUE)).isEqualTo(1);
            assertThat(q.get("later").orElseThrow().priority()).isEqualTo(9);
        }

        @Test
        void aJobKeepsItsPriority_throughNackRescheduleTimeoutAndRequeue() {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "prio", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(1))
                    .build();
            q.enqueueJob(NewJob.of("low", new Msg("l", 1), Duration.ZERO)); // due first, but of priority 0
            q.enqueueJob(NewJob.of("high", new Msg("h", 1), Duration.ZERO).withPriority(7));
            Job<Msg> first = q.claim(1).get(0);
            assertThat(first.id()).isEqualTo("high");
            assertThat(first.priority()).isEqualTo(7);

            // only a claim call returns expired jobs, so none of these claims can time out in between
            assertThat(q.nack(first, "boom", Duration.ZERO)).isTrue();
            Job<Msg> retried = q.claim(1).get(0);
            assertThat(retried.id()).isEqualTo("high");

            assertThat(q.reschedule(retried, Duration.ZERO, new Msg("h2", 2))).isTrue();
            Job<Msg> rescheduled = q.claim(1).get(0);
            assertThat(rescheduled.id()).isEqualTo("high");
            assertThat(rescheduled.payload()).isEqualTo(new Msg("h2", 2));
            assertThat(rescheduled.priority()).isEqualTo(7);

            // not settled: once its visibility ran out the next claim returns it to its level, ahead of "low"
            Instant deadline = q.get("high").orElseThrow().visibleUntil().orElseThrow();
            await().atMost(Duration.ofSeconds(20)).until(() -> Instant.now().isAfter(deadline.plusMillis(200)));
            assertThat(ids(q.claim(1))).containsExactly("high");
            assertThat(q.cancel("high")).isTrue();

            q.enqueueJob(NewJob.of("dies", new Msg("d", 1), Duration.ZERO).withPriority(4));
            Job<Msg> dies = q.claim(1).get(0);
            assertThat(dies.id()).isEqualTo("dies");
            assertThat(q.deadLetter(dies, "no")).isTrue();
            assertThat(q.deadLetters().requeue("dies")).isTrue();
            assertThat(q.get("dies").orElseThrow().priority()).isEqualTo(4);
            assertThat(ids(q.claim(1))).containsExactly("dies");
            assertThat(ids(q.claim(1))).containsExactly("low");
        }

        @Test
        void cancel_removesAWaitingJobFromItsLevel_andClaimPrunesEmptyLevels() {
            DelayQueue<Msg> q = queue();
            q.enqueueJob(NewJob.of("a", new Msg("a", 1), Duration.ZERO).withPriority(2));
            q.enqueueJob(NewJob.of("b", new Msg("b", 1), Duration.ofHours(1)).withPriority(6));
            assertThat(redis.zrange(LEVELS, 0, -1)).containsExactly("2", "6");

            assertThat(q.cancel("b")).isTrue();
            assertThat(q.stats().waiting()).isEqualTo(1);
            assertThat(ids(q.claim(10))).containsExactly("a");
            assertThat(redis.exists(LEVELS)).isFalse();
        }

        @Test
        void replace_withANewPayload_takesTheNewPriority_aDueTimeAloneKeepsIt() {
            DelayQueue<Msg> q = queue();
            q.enqueueJob(NewJob.of("r", new Msg("old", 1), Duration.ofHours(1)).withPriority(8));
            EnqueueResult due = q.enqueueJob(
                    NewJob.of("r", new Msg("ignored", 1), Duration.ZERO).replacing(Replace.DUE_TIME));
            assertThat(due.outcome()).isEqualTo(Outcome.REPLACED);
            assertThat(q.get("r").orElseThrow().priority()).isEqualTo(8);

            EnqueueResult payload = q.enqueueJob(NewJob.of("r", new Msg("new", 2), Duration.ZERO)
                    .replacing(Replace.PAYLOAD)
                    .withPriority(1));
            assertThat(payload.outcome()).isEqualTo(Outcome.REPLACED);
            q.enqueueJob(NewJob.of("two", new Msg("two", 2), Duration.ZERO).withPriority(2));
            List<Job<Msg>> claimed = q.claim(10);
            assertThat(ids(claimed)).containsExactly("two", "r");
            assertThat(claimed.get(1).payload()).isEqualTo(new Msg("new", 2));
            assertThat(claimed.get(1).priority()).isEqualTo(1);
            assertThat(q.stats().waiting()).isZero();
        }

        @Test
        void aWorker_runsDelayedJobsOfEveryLevel() {
            DelayQueue<Msg> q = queue();
            List<String> handled = new CopyOnWriteArrayList<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, j -> handled.add(j.id()))
                    .fallbackPoll(Duration.ofSeconds(30))
                    .build()
                    .start()) {
                for (int level = 0; level <= DelayQueue.MAX_PRIORITY; level++) {
                    q.enqueueJob(NewJob.of("j" + level, new Msg("x", level), Duration.ofMillis(200))
                            .withPriority(level));
                }
                // a notice wakes the worker for a delayed job of any level, long before its fallback poll
                await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 10);
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(Set.copyOf(handled)).hasSize(10);
        }

        @Test
        void aQueueWithoutPriorities_writesNoLevelKey() {
            DelayQueue<Msg> q = queue();
            q.enqueue("plain", new Msg("p", 1), Duration.ZERO);
            q.enqueueAll(List.of(NewJob.of(new Msg("batch", 1))));
            q.ackAll(q.claim(10));
            assertThat(redis.exists(LEVELS)).isFalse();
            for (int level = 1; level <= DelayQueue.MAX_PRIORITY; level++) {
                assertThat(redis.exists("deferlock:dq:{prio}:due:" + level)).isFalse();
            }
        }

        @Test
        void aPriorityOutsideTheRange_isRefused() {
            assertThatThrownBy(() -> NewJob.of(new Msg("x", 1)).withPriority(10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("priority must be within [0, 9], not 10");
            assertThatThrownBy(() -> NewJob.of(new Msg("x", 1)).withPriority(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("priority must be within [0, 9], not -1");
        }
    }
}
