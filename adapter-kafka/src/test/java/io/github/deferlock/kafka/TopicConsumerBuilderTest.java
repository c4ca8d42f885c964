package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The builder's rules: required settings named, each setting once, bad values refused with the value. */
@ExtendWith(RedisExtension.class)
final class TopicConsumerBuilderTest {
    private static final Map<String, Object> CONFIG = Map.of("bootstrap.servers", "127.0.0.1:1", "group.id", "g");

    private static ConflictAwareHandler<Order> handler(RedisLocks locks) {
        return ConflictAwareHandler.builder("b", Order.class, locks)
                .key(o -> "order:" + o.key())
                .handler(o -> {})
                .build();
    }

    @Test
    void orderKey_isRefused_recordsRunInTheOrderOfTheirKafkaKey(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            TopicConsumer.Builder<Order> b = TopicConsumer.builder(CONFIG, "t", Order.class, handler(locks))
                    .orderKey(Order::key);
            assertThatThrownBy(b::build)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("orderKey");
        }
    }

    @Test
    void missingBootstrapOrGroup_isRefusedNamingTheSetting(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            assertThatThrownBy(() -> TopicConsumer.builder(Map.of("group.id", "g"), "t", Order.class, handler(locks)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bootstrap.servers");
            assertThatThrownBy(() ->
                            TopicConsumer.builder(Map.of("bootstrap.servers", "x:1"), "t", Order.class, handler(locks)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("group.id");
            assertThatThrownBy(() -> TopicConsumer.builder(CONFIG, "", Order.class, handler(locks)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic");
        }
    }

    @Test
    void eachSetting_onceOnly_andInRange(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            TopicConsumer.Builder<Order> b = TopicConsumer.builder(CONFIG, "t", Order.class, handler(locks))
                    .concurrency(2);
            assertThatThrownBy(() -> b.concurrency(3))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("concurrency was already set to 2");
            assertThatThrownBy(() -> b.maxInFlight(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxInFlight")
                    .hasMessageContaining("0");
            assertThatThrownBy(() -> b.commitInterval(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("commitInterval");
            assertThatThrownBy(() -> b.maxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
            TopicConsumer<Order> c = b.build();
            assertThat(c.deadLetterTopic()).isEqualTo("t.dead");
            assertThat(c.isRunning()).isFalse();
            assertThat(c.close(Duration.ofSeconds(1)))
                    .as("closing an unstarted consumer")
                    .isTrue();
            assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class);
        }
    }
}
