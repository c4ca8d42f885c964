package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** {@link DelayQueue#stats()}: sizes and the counters the scripts keep, on a real Redis. */
@ExtendWith(RedisExtension.class)
final class QueueStatsIT {

    @Test
    void emptyQueue_isAllZero_andReadsWithoutBuildingAQueue(UnifiedJedis redis) {
        QueueStats s = DelayQueue.stats(redis, "nothing-here");
        assertThat(List.of(
                        s.waiting(),
                        s.due(),
                        s.inFlight(),
                        s.dead(),
                        s.enqueued(),
                        s.acked(),
                        s.deadLettered(),
                        s.held()))
                .containsOnly(0L);
        assertThat(s.oldestDueAge()).isZero();
        assertThat(s.queue()).isEqualTo("nothing-here");
        assertThatThrownBy(() -> DelayQueue.stats(redis, "bad name{")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sizesAndCounters_followEveryPath(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s", Msg.class)
                .maxAttempts(2)
                .visibilityTimeout(Duration.ofMillis(200))
                .build();
        q.enqueue("a", new Msg("a", 1), Duration.ZERO);
        q.enqueue("b", new Msg("b", 1), Duration.ZERO);
        q.enqueue("a", new Msg("a again", 2), Duration.ZERO); // the id exists: nothing stored, not counted
        List<Msg> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(new Msg("batch", i));
        }
        q.enqueueAll(batch, Duration.ZERO);
        q.enqueue("later", new Msg("later", 1), Duration.ofHours(1));

        QueueStats s = q.stats();
        assertThat(s.enqueued()).isEqualTo(8);
        assertThat(s.waiting()).isEqualTo(8);
        assertThat(s.due()).isEqualTo(7);
        assertThat(s.inFlight()).isZero();

        List<Job<Msg>> claimed = q.claim(7);
        assertThat(claimed).hasSize(7);
        assertThat(q.stats().inFlight()).isEqualTo(7);
        assertThat(q.ack(claimed.get(0))).isTrue();
        assertThat(q.ack(claimed.get(0))).isFalse(); // stale: not counted twice
        assertThat(q.ackAll(claimed.subList(1, 4))).containsOnly(true);
        assertThat(q.deadLetter(claimed.get(4), "no")).isTrue();
        assertThat(q.nack(claimed.get(5), "retry me", Duration.ZERO)).isTrue(); // attempt 1 of 2: back to due
        // claimed.get(6) is left to time out: returned to due (attempt 1 of 2), then claimed and timed out again

        s = q.stats();
        assertThat(s.acked()).isEqualTo(4);
        assertThat(s.deadLettered()).isEqualTo(1);
        assertThat(s.dead()).isEqualTo(1);
        assertThat(s.enqueued()).isEqualTo(8);

        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    q.claim(10); // returns expired claims: to due on the first attempt, to the dead letters on the
                    // second
                    return q.stats().dead() == 3;
                });
        s = q.stats();
        assertThat(s.deadLettered()).isEqualTo(3);
        assertThat(s.acked()).isEqualTo(4);
        assertThat(s.waiting()).isEqualTo(1); // "later"

        q.deadLetters().requeueAll();
        List<Job<Msg>> again = q.claim(10);
        assertThat(again).hasSize(3);
        assertThat(q.ackAll(again)).containsOnly(true);
        s = q.stats();
        assertThat(s.acked()).isEqualTo(7);
        assertThat(s.deadLettered()).isEqualTo(3); // requeueing does not undo the count
        assertThat(s.dead()).isZero();
        QueueStats fromOutside = DelayQueue.stats(redis, "s");
        assertThat(List.of(fromOutside.enqueued(), fromOutside.acked(), fromOutside.deadLettered()))
                .containsExactly(8L, 7L, 3L);
    }

    @Test
    void oldestDueAge_isTheServersView(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "age", Msg.class).build();
        q.schedule("old", new Msg("old", 1), java.time.Instant.now().minusSeconds(30));
        QueueStats s = q.stats();
        assertThat(s.oldestDueAge()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(40));
        assertThat(s.due()).isEqualTo(1);
    }

    @Test
    void counters_liveInOneSmallHashWithoutTtl(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "h", Msg.class).build();
        q.enqueue(new Msg("x", 1));
        Job<Msg> job = q.claim(1).get(0);
        q.ack(job);
        byte[] key = "deferlock:dq:{h}:stats".getBytes(StandardCharsets.UTF_8);
        assertThat(redis.hgetAll("deferlock:dq:{h}:stats")).isEqualTo(Map.of("enqueued", "1", "acked", "1"));
        assertThat(redis.pttl(key)).isEqualTo(-1L);
    }
}
