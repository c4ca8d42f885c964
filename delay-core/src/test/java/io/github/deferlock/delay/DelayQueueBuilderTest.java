package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/** The builder's rules and their wording; nothing here talks to Redis (the client is never used). */
final class DelayQueueBuilderTest {
    private static UnifiedJedis unused;

    @BeforeAll
    static void client() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        unused = Clients.pooled(new HostAndPort("127.0.0.1", port));
    }

    @AfterAll
    static void close() {
        unused.close();
    }

    private static DelayQueue.Builder<Msg> builder() {
        return DelayQueue.builder(unused, "q", Msg.class);
    }

    @Test
    void build_unset_takesTheDefaults() {
        DelayQueue<Msg> q = builder().build();
        assertThat(q.visibilityTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(q.maxAttempts()).isEqualTo(10);
        assertThat(q.maxPayloadBytes()).isEqualTo(256 * 1024);
        assertThat(q.backoff()).isSameAs(QueueConfig.DEFAULT_BACKOFF);
        assertThat(q.listener()).isSameAs(QueueListener.NONE);
        assertThat(q.waitsForReplicas()).isFalse();
    }

    @Test
    void build_twice_givesTwoQueuesOfTheSameSettings_andWritesNothingBack() {
        DelayQueue.Builder<Msg> b = builder().maxAttempts(3);
        DelayQueue<Msg> first = b.build();
        DelayQueue<Msg> second = b.build();
        assertThat(second.maxAttempts()).isEqualTo(first.maxAttempts()).isEqualTo(3);
        // the default was not written back: the setting is still unset and can be set once
        assertThat(b.visibilityTimeout(Duration.ofSeconds(5)).build().visibilityTimeout())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void settings_outOfRange_areRefusedInTheOneWording() {
        assertThatThrownBy(() -> builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be at least 1, not 0");
        assertThatThrownBy(() -> builder().maxPayloadBytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxPayloadBytes must be within [1, 67108864], not 0");
        assertThatThrownBy(() -> builder().visibilityTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("visibilityTimeout must be within [1 ms, 366 days], not 0 s");
        assertThatThrownBy(() -> builder().waitForReplicas(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicas must be at least 1, not 0");
        assertThatThrownBy(() -> builder().waitForReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be within [1 ms, 366 days], not 0 s");
    }

    @Test
    void settings_null_areRefused() {
        assertThatThrownBy(() -> builder().backoff(null)).hasMessage("backoff cannot be null");
        assertThatThrownBy(() -> builder().headers(null)).hasMessage("headers cannot be null");
        assertThatThrownBy(() -> builder().listener(null)).hasMessage("listener cannot be null");
        assertThatThrownBy(() -> DelayQueue.builder(null, "q", Msg.class)).hasMessage("redis cannot be null");
    }

    @Test
    void settings_setTwice_nameTheEarlierValue() {
        assertThatThrownBy(() -> builder().maxAttempts(3).maxAttempts(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("maxAttempts was already set to 3");
        assertThatThrownBy(() ->
                        builder().waitForReplicas(1, Duration.ofSeconds(1)).waitForReplicas(2, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("waitForReplicas was already set to 1 replicas within 1 s");
        assertThatThrownBy(() -> builder().headers(Map::of).headers(Map::of))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("headers was already set to ");
    }

    @Test
    void listener_isWrappedSoThatItCannotThrow() {
        QueueListener throwing = new QueueListener() {
            @Override
            public void onEnqueued(String queue, String jobId, java.time.Instant dueAt) {
                throw new IllegalStateException("boom");
            }
        };
        DelayQueue<Msg> q = builder().listener(throwing).build();
        q.listener().onEnqueued("q", "id", java.time.Instant.EPOCH); // logged, not thrown
        assertThat(q.listener()).isInstanceOf(SafeQueueListener.class);
    }
}
