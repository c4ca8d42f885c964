package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/** Job ids and queue names follow the one name rule (docs/names.md): two names never share a key. */
@ExtendWith(RedisExtension.class)
final class QueueNamesIT {

    /** Regression: String.getBytes turned an unpaired surrogate into '?', so these three were one job. */
    @Test
    void enqueue_idsWithUnpairedSurrogates_refusedAndNeverMergedWithQuestionMark(
            RedisServer server, UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "ids", Msg.class).build();
        for (String bad : List.of("j\uD800", "j\uDBFF", "j\uDC00")) {
            assertThatThrownBy(() -> q.enqueue(bad, new Msg(bad, 1), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("job id")
                    .hasMessageContaining("\\u" + String.format("%04X", (int) bad.charAt(1)))
                    .hasMessageContaining("valid Unicode");
            assertThatThrownBy(() -> q.enqueueAll(List.of(NewJob.of(bad, new Msg(bad, 1), Duration.ZERO))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> q.get(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> q.cancel(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> q.deadLetters().requeue(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        EnqueueResult r = q.enqueue("j?", new Msg("plain", 2), Duration.ZERO);
        assertThat(r.duplicate())
                .as("'j?' is its own job, not one of the refused ones")
                .isFalse();
        assertThat(q.claim(10)).singleElement().satisfies(j -> {
            assertThat(j.id()).isEqualTo("j?");
            assertThat(j.payload().text()).isEqualTo("plain");
        });
    }

    /** Regression: queue names "s\uD800", "s\uDC00" and "s?" shared the keys deferlock:dq:{s?}:*. */
    @Test
    void builder_queueNamesWithUnpairedSurrogates_refusedAndNeverShareKeys(RedisServer server, UnifiedJedis redis) {
        for (String bad : List.of("s\uD800", "s\uDC00", "\uDBFFs")) {
            assertThatThrownBy(() -> DelayQueue.builder(redis, bad, Msg.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("queue name")
                    .hasMessageContaining("unpaired surrogate")
                    .hasMessageContaining("valid Unicode");
        }
        DelayQueue<Msg> plain = DelayQueue.builder(redis, "s?", Msg.class).build();
        plain.enqueue("a", new Msg("a", 1), Duration.ZERO);
        assertThat(plain.size(JobState.DUE)).isEqualTo(1);
        try (Jedis admin = server.newConnection()) {
            assertThat(admin.keys("*")).allSatisfy(k -> assertThat(k).startsWith("deferlock:dq:{s?}:"));
        }
    }

    /** The limits are in UTF-8 bytes: 200 for a queue name, 512 for a job id; the message states the rule. */
    @Test
    void limits_areUtf8Bytes_andTheMessageStatesTheRule(UnifiedJedis redis) {
        DelayQueue.builder(redis, "q".repeat(200), Msg.class).build();
        assertThatThrownBy(() -> DelayQueue.builder(redis, "\u00E9".repeat(101), Msg.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("202 bytes")
                .hasMessageContaining("1 to 200 bytes");
        assertThatThrownBy(() -> DelayQueue.builder(redis, "a{b", Msg.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'{'");
        DelayQueue<Msg> q = DelayQueue.builder(redis, "limits", Msg.class).build();
        assertThat(q.enqueue("i".repeat(512), new Msg("x", 1), Duration.ZERO).duplicate())
                .isFalse();
        assertThatThrownBy(() -> q.enqueue("\u20AC".repeat(171), new Msg("x", 1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 bytes")
                .hasMessageContaining("1 to 512 bytes");
    }
}
