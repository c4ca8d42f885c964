package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** {@code queue.deadLetters()}: the view, the typed causes, and the deprecated methods it replaces. */
@ExtendWith(RedisExtension.class)
final class DeadLettersIT {

    private static DelayQueue.Builder<Msg> builder(UnifiedJedis redis) {
        return DelayQueue.builder(redis, "d", Msg.class);
    }

    private static Map<String, DeadLetterCause> causes(DelayQueue<Msg> q) {
        Map<String, DeadLetterCause> out = new java.util.HashMap<>();
        for (DeadLetter d : q.deadLetters().list(100)) {
            out.put(d.id(), d.cause());
        }
        return out;
    }

    @Test
    void cause_isTypedForEveryWayTheQueueKillsAJob(UnifiedJedis redis) {
        DelayQueue<Msg> q = builder(redis)
                .maxAttempts(1)
                .visibilityTimeout(Duration.ofMillis(100))
                .build();
        q.enqueue("failed", new Msg("failed", 1), Duration.ZERO);
        q.enqueue("given-up", new Msg("given-up", 1), Duration.ZERO);
        q.enqueue("hung", new Msg("hung", 1), Duration.ZERO);
        for (Job<Msg> job : q.claim(10)) {
            switch (job.id()) {
                case "failed" ->
                    assertThat(q.nack(job, "java.lang.IllegalStateException: no", null))
                            .isTrue();
                case "given-up" -> assertThat(q.deadLetter(job, "my own words")).isTrue();
                default -> {} // "hung": never settled, its visibility runs out on its only attempt
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            q.claim(10); // returns expired in-flight jobs (to the dead letters here)
            return q.deadLetters().count() == 3;
        });

        assertThat(causes(q))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "failed", DeadLetterCause.ATTEMPTS_EXHAUSTED,
                        "given-up", DeadLetterCause.DEAD_LETTERED,
                        "hung", DeadLetterCause.VISIBILITY_TIMEOUT));
        assertThat(q.deadLetters().list(10))
                .filteredOn(d -> d.id().equals("given-up"))
                .singleElement()
                .satisfies(d -> assertThat(d.reason()).isEqualTo("my own words"));
    }

    @Test
    void cause_ofADeadLetterStoredByThePreviousVersion_isUnknown(UnifiedJedis redis) {
        QueueKeys keys = QueueKeys.of("d");
        redis.hset(keys.jobs(), bytes("old"), bytes("000000000001x3|||{\"text\":\"old\",\"n\":1}"));
        redis.hset(keys.errors(), bytes("old"), bytes("visibility timeout expired on attempt 3 of 3"));
        redis.zadd(keys.dead(), 1_700_000_000_000d, bytes("000000000001old"));

        DeadLetter dead = builder(redis).build().deadLetters().list(1).get(0);
        assertThat(dead.cause()).isEqualTo(DeadLetterCause.UNKNOWN);
        assertThat(dead.reason()).isEqualTo("visibility timeout expired on attempt 3 of 3");
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.headers()).isEmpty();
    }

    @Test
    void requeuedDeadLetter_thatDiesAgain_getsItsNewCause(UnifiedJedis redis) {
        DelayQueue<Msg> q = builder(redis).maxAttempts(1).build();
        q.enqueue("j", new Msg("j", 1), Duration.ZERO);
        q.deadLetter(q.claim(1).get(0), "first");
        assertThat(q.deadLetters().requeue("j")).isTrue();
        q.nack(q.claim(1).get(0), "second", null);
        assertThat(q.deadLetters().list(1).get(0))
                .satisfies(d -> assertThat(d.cause()).isEqualTo(DeadLetterCause.ATTEMPTS_EXHAUSTED))
                .satisfies(d -> assertThat(d.reason()).isEqualTo("second"));
    }

    @Test
    void view_countsRequeuesAndPurges(UnifiedJedis redis) {
        DelayQueue<Msg> q = builder(redis).build();
        for (int i = 0; i < 3; i++) {
            q.enqueue("j" + i, new Msg("x", i), Duration.ZERO);
        }
        for (Job<Msg> job : q.claim(10)) {
            q.deadLetter(job, "poison");
        }
        DeadLetters dead = q.deadLetters();
        assertThat(dead.count()).isEqualTo(3);
        assertThat(dead.requeue("j0")).isTrue();
        assertThat(dead.count()).isEqualTo(2);
        assertThat(dead.requeueAll()).isEqualTo(2);
        assertThat(dead.count()).isZero();
        for (Job<Msg> job : q.claim(10)) {
            q.deadLetter(job, "poison again");
        }
        assertThat(dead.purge()).isEqualTo(3);
        assertThat(dead.count()).isZero();
        assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT)).isZero();
    }

    @Test
    @SuppressWarnings("deprecation")
    void deprecatedMethods_delegateToTheView(UnifiedJedis redis) {
        DelayQueue<Msg> q = builder(redis).build();
        q.enqueue("a", new Msg("a", 1), Duration.ZERO);
        q.enqueue("b", new Msg("b", 1), Duration.ZERO);
        for (Job<Msg> job : q.claim(10)) {
            q.deadLetter(job, "x");
        }
        assertThat(q.deadLetters(10)).extracting(DeadLetter::id).containsExactly("a", "b");
        assertThat(q.requeueDead("a")).isTrue();
        assertThat(q.requeueAllDead()).isEqualTo(1);
        List<Job<Msg>> again = q.claim(10);
        for (Job<Msg> job : again) {
            q.deadLetter(job, "y");
        }
        assertThat(q.purgeDead()).isEqualTo(2);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
