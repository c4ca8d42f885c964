package io.github.deferlock.consumer;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.function.Function;

/**
 * The settings every conflict-aware consumer has, whatever its broker; each adapter's builder extends it with its
 * own. Each setting may be set once: a second call is an {@link IllegalStateException} that names the old value.
 * Not threadsafe.
 *
 * <p><b>Failures.</b> A message whose lock or deferral call cannot reach Redis (unreachable, {@code LOADING}, a
 * failover) is tried again after a pause that grows up to 5 s while Redis stays away; consumption pauses
 * meanwhile, and such a failure never costs an attempt nor dead-letters the message. A message whose handler
 * throws (anything, its own Redis errors and {@link Error}s included) uses one of its {@link #maxAttempts(int)
 * attempts}: it is tried again after {@link #retryBackoff(Backoff)} and, after the last one, goes to the adapter's
 * dead letters. A broker's delivery count never dead-letters a message by itself: a message redelivered more often
 * than {@code maxAttempts} still runs once more.
 *
 * @param <M> the message type
 * @param <L> the adapter's listener type
 * @param <B> the adapter's builder
 */
public abstract class ConsumerBuilder<M, L extends ConsumerListener, B extends ConsumerBuilder<M, L, B>> {
    /** The most handler threads a consumer may have. */
    public static final int MAX_CONCURRENCY = 1_000;
    /** The default retry backoff: 100 ms doubling up to 5 s, ±20 % jitter. */
    public static final Backoff DEFAULT_RETRY_BACKOFF = Backoff.exponential(
                    Duration.ofMillis(100), Duration.ofSeconds(5), 2.0)
            .withJitter(0.2);

    private final ConflictAwareHandler<M> handler;
    private final Function<ObjectMapper, ObjectReader> readerOf;
    private final L noListener;
    private ObjectMapper mapper;
    private Integer concurrency;
    private Boolean virtualThreads;
    private Integer maxAttempts;
    private Backoff retryBackoff;
    private L listener;
    private Function<? super M, String> orderKey;
    private Boolean anyOrder;

    /**
     * A builder for messages of {@code type} or {@code typeRef} (exactly one is given) handed to {@code handler};
     * {@code noListener} is the adapter's listener that hears nothing, the default.
     *
     * @throws NullPointerException when {@code handler}, or both types, are null
     */
    protected ConsumerBuilder(Class<M> type, TypeReference<M> typeRef, ConflictAwareHandler<M> handler, L noListener) {
        if (type == null) {
            Require.notNull("type", typeRef);
        }
        this.readerOf = type != null ? m -> m.readerFor(type) : m -> m.readerFor(typeRef);
        this.handler = Require.notNull("handler", handler);
        this.noListener = noListener;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The ObjectMapper that reads message bodies (default a plain {@code new ObjectMapper()}). */
    public B objectMapper(ObjectMapper m) {
        mapper = Require.setOnce("objectMapper", mapper, m);
        return self();
    }

    /** How many messages run at once, each on its own handler thread (default 4, at most 1,000). */
    public B concurrency(int n) {
        concurrency = Require.setOnce("concurrency", concurrency, Require.within("concurrency", n, 1, MAX_CONCURRENCY));
        return self();
    }

    /**
     * Run handlers on virtual threads (Java 21+; on an older Java the adapter's {@code build()} throws {@link
     * UnsupportedOperationException}). Default false: platform daemon threads.
     */
    public B virtualThreads(boolean on) {
        virtualThreads = Require.setOnce("virtualThreads", virtualThreads, on);
        return self();
    }

    /**
     * On which failed attempt a message goes to the dead letters (default 5; 1 means no retry). Only handler
     * failures count; a Redis outage never uses an attempt, and a redelivery past the limit runs once more.
     */
    public B maxAttempts(int n) {
        maxAttempts = Require.setOnce("maxAttempts", maxAttempts, Require.within("maxAttempts", n, 1, 1_000_000));
        return self();
    }

    /**
     * How long to wait after a failed attempt before the next one (default {@link #DEFAULT_RETRY_BACKOFF}). The
     * message waits on its handler thread, unacknowledged, which keeps the order of its key.
     */
    public B retryBackoff(Backoff backoff) {
        retryBackoff = Require.setOnce("retryBackoff", retryBackoff, backoff);
        return self();
    }

    /**
     * Hears what happens to each message: handled, acknowledged, failed, waiting for Redis, dead-lettered, plus
     * the adapter's own events (Kafka's commits and rebalances, Streams' reclaims). Default: none.
     */
    public B listener(L l) {
        listener = Require.setOnce("listener", listener, l);
        return self();
    }

    /**
     * The key whose messages run one at a time, in the order the broker delivered them, while messages of
     * different keys run in parallel on the {@link #concurrency(int) handler threads} (keys share a thread by
     * hash). Default: the handler's lock key ({@link ConflictAwareHandler#key}), so the messages of one lock run
     * in their order, deferred or not (ordered DEFER parks a key's later messages behind a deferred one). A
     * message waiting for its retry or for Redis holds back the later messages of its key (and of the keys
     * sharing its thread). Order holds within one consumer; several consumers of one queue or group split a
     * key's messages between them (see the adapter's docs). Kafka always orders by the record key and refuses
     * this setting.
     *
     * @throws IllegalStateException when {@link #anyOrder()} was called
     */
    public B orderKey(Function<? super M, String> key) {
        if (anyOrder != null) {
            throw new IllegalStateException("orderKey cannot be set with anyOrder(): choose one");
        }
        orderKey = Require.setOnce("orderKey", orderKey, key);
        return self();
    }

    /**
     * Keeps no per-key order: any free handler thread takes the next message, so a slow or retried message never
     * holds back the others of its key (the behaviour before per-key lanes). Not for Kafka.
     *
     * @throws IllegalStateException when {@link #orderKey} was set, or this was called before
     */
    public B anyOrder() {
        if (orderKey != null) {
            throw new IllegalStateException("anyOrder() cannot be used with orderKey: choose one");
        }
        anyOrder = Require.setOnce("anyOrder", anyOrder, Boolean.TRUE);
        return self();
    }

    /** Whether {@link #orderKey} or {@link #anyOrder()} was set (Kafka refuses both). */
    protected final boolean orderChosen() {
        return orderKey != null || anyOrder != null;
    }

    /**
     * The shared settings as they stand, with defaults for those not set; the adapter's {@code build()} reads them.
     *
     * @throws UnsupportedOperationException when virtual threads were asked for and this Java is older than 21
     */
    public final ConsumerSettings<M, L> settings() {
        if (Boolean.TRUE.equals(virtualThreads) && Runtime.version().feature() < 21) {
            throw new UnsupportedOperationException("virtual threads need Java 21 or newer, this is Java "
                    + Runtime.version().feature());
        }
        ObjectMapper m = Require.orDefault(mapper, new ObjectMapper());
        return new ConsumerSettings<>(
                handler,
                readerOf.apply(m),
                Require.orDefault(concurrency, 4),
                Require.orDefault(virtualThreads, false),
                Require.orDefault(maxAttempts, 5),
                Require.orDefault(retryBackoff, DEFAULT_RETRY_BACKOFF),
                Require.orDefault(listener, noListener),
                anyOrder != null ? null : orderKey != null ? orderKey : (Function<M, String>) handler::key);
    }
}
