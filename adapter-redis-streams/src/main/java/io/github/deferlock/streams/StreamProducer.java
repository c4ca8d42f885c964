package io.github.deferlock.streams;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.consumer.internal.PayloadWriter;
import io.github.deferlock.redis.internal.Require;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.XAddParams;

/**
 * Adds messages to a Redis stream in the shape {@link StreamConsumer} reads: one field {@value
 * StreamConsumer#PAYLOAD_FIELD} holding the message as JSON. With {@link Builder#maxLen(long)} every add trims
 * the stream to about that many entries ({@code XADD … MAXLEN ~ n}): a bounded stream, at the price that
 * entries still unread by a slow group can be trimmed away, so size it well above the expected backlog.
 *
 * <pre>{@code
 * StreamProducer producer = StreamProducer.builder(redis, "order-events").maxLen(1_000_000).build();
 * producer.add(new OrderEvent("e-1", "42", 100));
 * }</pre>
 *
 * <p>Threadsafe once built; the builder is not.
 */
public final class StreamProducer {

    private final UnifiedJedis redis;
    private final String stream;
    private final ObjectMapper mapper;
    private final long maxLen;

    private StreamProducer(Builder b) {
        this.redis = b.redis;
        this.stream = b.stream;
        this.mapper = Require.orDefault(b.mapper, new ObjectMapper());
        this.maxLen = Require.orDefault(b.maxLen, 0L); // 0: unbounded
    }

    /** Returns a builder for a producer to {@code stream} on {@code redis}. */
    public static Builder builder(UnifiedJedis redis, String stream) {
        return new Builder(redis, stream);
    }

    /** The stream's key. */
    public String stream() {
        return stream;
    }

    /**
     * Adds {@code message} as JSON.
     *
     * @return the new entry's id
     * @throws IllegalArgumentException when the message cannot be written as JSON
     */
    public String add(Object message) {
        String json = new String(PayloadWriter.write(mapper, message), StandardCharsets.UTF_8);
        XAddParams params = XAddParams.xAddParams();
        if (maxLen > 0) {
            params.maxLen(maxLen).approximateTrimming();
        }
        return redis.xadd(stream, params, Map.of(StreamConsumer.PAYLOAD_FIELD, json))
                .toString();
    }

    @Override
    public String toString() {
        return "StreamProducer[" + stream + (maxLen > 0 ? ", maxLen ~" + maxLen : "") + "]";
    }

    /** Builds a {@link StreamProducer}. Each setting may be set once. Not threadsafe. */
    public static final class Builder {
        private final UnifiedJedis redis;
        private final String stream;
        private ObjectMapper mapper;
        private Long maxLen;

        private Builder(UnifiedJedis redis, String stream) {
            this.redis = Require.notNull("redis", redis);
            this.stream = Require.notEmpty("stream", stream);
        }

        /** The ObjectMapper that writes messages (default a plain {@code new ObjectMapper()}). */
        public Builder objectMapper(ObjectMapper m) {
            mapper = Require.setOnce("objectMapper", mapper, m);
            return this;
        }

        /**
         * Trims the stream to about {@code n} entries on every add ({@code MAXLEN ~ n}; Redis trims whole
         * macro nodes, so the stream may hold somewhat more). Default: unbounded.
         */
        public Builder maxLen(long n) {
            Require.atLeast("maxLen", n, 1L);
            maxLen = Require.setOnce("maxLen", maxLen, n);
            return this;
        }

        /** Builds it. */
        public StreamProducer build() {
            return new StreamProducer(this);
        }
    }
}
