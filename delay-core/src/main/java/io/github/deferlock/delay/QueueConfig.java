package io.github.deferlock.delay;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.redis.internal.Require;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * The settings of one {@link DelayQueue}, every default resolved and every rule checked: what {@link
 * DelayQueue.Builder#build()} produces. Immutable.
 *
 * @param redis the client
 * @param name the queue name (already checked against the name rule)
 * @param type the payload type
 * @param mapper the payload mapper (no default typing)
 * @param visibilityTimeout how long a claim lasts
 * @param maxAttempts deliveries before the dead letters
 * @param backoff the delay before a retry
 * @param maxPayloadBytes the largest encoded payload
 * @param clock the client clock, for local estimates only
 * @param replicas the replicas a write must reach, 0 for no {@code WAIT}
 * @param replicaTimeout how long {@code WAIT} waits; null when {@code replicas} is 0
 * @param listener the listener, already made safe ({@link SafeQueueListener}), or {@link QueueListener#NONE}
 * @param headers the headers added to every job this queue enqueues, or null for none
 */
record QueueConfig(
        UnifiedJedis redis,
        String name,
        JavaType type,
        ObjectMapper mapper,
        Duration visibilityTimeout,
        int maxAttempts,
        Backoff backoff,
        int maxPayloadBytes,
        Clock clock,
        int replicas,
        Duration replicaTimeout,
        QueueListener listener,
        Supplier<Map<String, String>> headers) {

    static final Duration DEFAULT_VISIBILITY = Duration.ofSeconds(30);
    static final int DEFAULT_MAX_ATTEMPTS = 10;
    static final Backoff DEFAULT_BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(10), 2.0)
            .withJitter(0.2);
    static final int DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;
    static final int LIMIT_PAYLOAD_BYTES = 64 * 1024 * 1024;
    static final Duration MIN_VISIBILITY = Duration.ofMillis(1);

    /** Checks every setting. */
    QueueConfig {
        Require.notNull("redis", redis);
        Require.notNull("name", name);
        Require.notNull("type", type);
        Require.notNull("objectMapper", mapper);
        Require.within("visibilityTimeout", visibilityTimeout, MIN_VISIBILITY, DelayQueue.MAX_DELAY);
        Require.atLeast("maxAttempts", maxAttempts, 1);
        Require.notNull("backoff", backoff);
        Require.within("maxPayloadBytes", maxPayloadBytes, 1, LIMIT_PAYLOAD_BYTES);
        Require.notNull("clock", clock);
        Require.atLeast("replicas", replicas, 0);
        if (replicas > 0) {
            Require.within("timeout", replicaTimeout, MIN_VISIBILITY, DelayQueue.MAX_DELAY);
        }
        Require.notNull("listener", listener);
        if (mapper.getDeserializationConfig().getDefaultTyper(type) != null
                || mapper.getSerializationConfig().getDefaultTyper(type) != null) {
            throw new IllegalArgumentException("the objectMapper for queue '" + name
                    + "' has default typing enabled; payloads must not name their own classes");
        }
    }

    /** The headers the queue adds to a job enqueued now, evaluated on the calling thread; empty when none. */
    Map<String, String> defaultHeaders() {
        if (headers == null) {
            return Map.of();
        }
        Map<String, String> h = headers.get();
        return h == null ? Map.of() : h;
    }
}
