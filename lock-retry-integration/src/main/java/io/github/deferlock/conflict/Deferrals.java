package io.github.deferlock.conflict;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where {@link OnConflict#DEFER} stores messages whose lock was taken: a {@link DelayQueue} of {@link
 * DeferredMessage}s, the deferral backoff and limit, and a worker that runs each due message with the
 * {@link ConflictAwareHandler} of the same name, under the same lock. Any process that builds handlers with
 * the same names over the same queue can run the deferred messages of the others.
 *
 * <pre>{@code
 * Deferrals deferrals = Deferrals.builder(redis, "orders-deferred")
 *         .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(30), 2.0).withJitter(0.2))
 *         .maxDeferrals(20)
 *         .build();
 * // ... build ConflictAwareHandlers with .deferrals(deferrals), then:
 * deferrals.startWorker(4);
 * }</pre>
 *
 * <p>Defaults: backoff exponential 50 ms → 30 s (factor 2, 20 % jitter), 20 deferrals, done markers kept 1
 * day. Threadsafe once built; the builder is not.
 */
public final class Deferrals implements AutoCloseable {

    private final DelayQueue<DeferredMessage> queue;
    private final Backoff backoff;
    private final int maxDeferrals;
    private final Duration doneTtl;
    private final UnifiedJedis redis;
    private final String name;
    private final ObjectMapper mapper;
    private final Map<String, ConflictAwareHandler<?>> handlers = new ConcurrentHashMap<>();
    private final Map<DelayQueueWorker<DeferredMessage>, Boolean> workers = new ConcurrentHashMap<>();

    private Deferrals(Builder b) {
        this.redis = b.redis;
        this.name = b.name;
        this.mapper = b.mapper == null ? new ObjectMapper() : b.mapper;
        this.backoff = b.backoff == null
                ? Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(30), 2.0)
                        .withJitter(0.2)
                : b.backoff;
        this.maxDeferrals = b.maxDeferrals == 0 ? 20 : b.maxDeferrals;
        this.doneTtl = b.doneTtl == null ? Duration.ofDays(1) : b.doneTtl;
        DelayQueue.Builder<DeferredMessage> qb =
                DelayQueue.builder(redis, name, DeferredMessage.class).objectMapper(mapper);
        if (b.visibilityTimeout != null) {
            qb.visibilityTimeout(b.visibilityTimeout);
        }
        if (b.maxAttempts != 0) {
            qb.maxAttempts(b.maxAttempts);
        }
        if (b.queueListener != null) {
            qb.listener(b.queueListener);
        }
        if (b.queueHeaders != null) {
            qb.headers(b.queueHeaders);
        }
        this.queue = qb.build();
    }

    /**
     * Returns a builder for the deferral queue named {@code queueName} on {@code redis}.
     *
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     */
    public static Builder builder(UnifiedJedis redis, String queueName) {
        return new Builder(redis, queueName);
    }

    /** The delay queue holding deferred messages (for sizes, dead letters and requeueing). */
    public DelayQueue<DeferredMessage> queue() {
        return queue;
    }

    /** The backoff between deferrals: deferral {@code n} waits {@code backoff.delay(n)}. */
    public Backoff backoff() {
        return backoff;
    }

    /** After this many deferrals the next conflict dead-letters the message. */
    public int maxDeferrals() {
        return maxDeferrals;
    }

    /**
     * How long the id of a processed message is remembered, so a redelivery is skipped. The marker is the key
     * {@code deferlock:dq:{<queue>}:done:<n>:<handler>:<id>}, under this queue's key prefix (docs/names.md).
     */
    public Duration doneMarkerTtl() {
        return doneTtl;
    }

    UnifiedJedis redis() {
        return redis;
    }

    ObjectMapper mapper() {
        return mapper;
    }

    String name() {
        return name;
    }

    void register(ConflictAwareHandler<?> handler) {
        ConflictAwareHandler<?> old = handlers.putIfAbsent(handler.name(), handler);
        if (old != null && old != handler) {
            throw new IllegalStateException("a handler named '" + handler.name() + "' is already registered with "
                    + "deferral queue '" + name + "'");
        }
    }

    /**
     * Starts a worker with {@code concurrency} threads that runs due deferred messages with their handlers.
     * A message whose handler is not registered in this process fails its delivery (the queue retries it, so
     * another process that has the handler can take it). Stop it with {@link DelayQueueWorker#close()} or
     * {@link #close()}.
     */
    public DelayQueueWorker<DeferredMessage> startWorker(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, not " + concurrency);
        }
        DelayQueueWorker<DeferredMessage> worker = DelayQueueWorker.builder(queue, this::runDue)
                .concurrency(concurrency)
                .build();
        workers.put(worker, Boolean.TRUE);
        worker.start();
        return worker;
    }

    /**
     * The handler {@link #startWorker(int)} runs: each due message with its registered handler, under its lock.
     * For a worker built by the caller, e.g. with its handler wrapped in an observation.
     */
    public JobHandler<DeferredMessage> jobHandler() {
        return this::runDue;
    }

    private void runDue(Job<DeferredMessage> job) throws Exception {
        DeferredMessage m = job.payload();
        ConflictAwareHandler<?> handler = handlers.get(m.handler());
        if (handler == null) {
            throw new IllegalStateException("no handler named '" + m.handler() + "' is registered in this process "
                    + "for deferral queue '" + name + "'");
        }
        handler.runDeferred(job);
    }

    /** Stops the workers this object started (gracefully: running messages finish). */
    @Override
    public void close() {
        workers.keySet().forEach(DelayQueueWorker::close);
        workers.clear();
    }

    /** Builds {@link Deferrals}. Each setting may be set once. Not threadsafe. */
    public static final class Builder {
        private final UnifiedJedis redis;
        private final String name;
        private ObjectMapper mapper;
        private Backoff backoff;
        private int maxDeferrals;
        private Duration doneTtl;
        private Duration visibilityTimeout;
        private int maxAttempts;
        private QueueListener queueListener;
        private Supplier<Map<String, String>> queueHeaders;

        private Builder(UnifiedJedis redis, String name) {
            this.redis = Objects.requireNonNull(redis, "redis cannot be null");
            Objects.requireNonNull(name, "queueName cannot be null");
            Names.requireValid(Names.Kind.QUEUE_NAME, name);
            this.name = name;
        }

        /** The ObjectMapper for messages (default a plain {@code new ObjectMapper()}, no default typing). */
        public Builder objectMapper(ObjectMapper m) {
            Objects.requireNonNull(m, "objectMapper cannot be null");
            if (mapper != null) {
                throw new IllegalStateException("objectMapper was already set");
            }
            mapper = m;
            return this;
        }

        /** The delay before deferral {@code n} (default exponential 50 ms → 30 s, factor 2, 20 % jitter). */
        public Builder backoff(Backoff b) {
            Objects.requireNonNull(b, "backoff cannot be null");
            if (backoff != null) {
                throw new IllegalStateException("backoff was already set to " + backoff);
            }
            backoff = b;
            return this;
        }

        /** How many deferrals before a message is dead-lettered (default 20). */
        public Builder maxDeferrals(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxDeferrals must be at least 1, not " + n);
            }
            if (maxDeferrals != 0) {
                throw new IllegalStateException("maxDeferrals was already set to " + maxDeferrals);
            }
            maxDeferrals = n;
            return this;
        }

        /** How long processed message ids are remembered for dedup (default 1 day). */
        public Builder doneMarkerTtl(Duration ttl) {
            Objects.requireNonNull(ttl, "doneMarkerTtl cannot be null");
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("doneMarkerTtl must be positive, not " + ttl);
            }
            if (doneTtl != null) {
                throw new IllegalStateException("doneMarkerTtl was already set to " + doneTtl);
            }
            doneTtl = ttl;
            return this;
        }

        /** The queue's visibility timeout for a running deferred message (default: the queue's). */
        public Builder visibilityTimeout(Duration d) {
            Objects.requireNonNull(d, "visibilityTimeout cannot be null");
            if (visibilityTimeout != null) {
                throw new IllegalStateException("visibilityTimeout was already set to " + visibilityTimeout);
            }
            visibilityTimeout = d;
            return this;
        }

        /** How many times a deferred message whose handler throws is tried (default: the queue's). */
        public Builder maxAttempts(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, not " + n);
            }
            if (maxAttempts != 0) {
                throw new IllegalStateException("maxAttempts was already set to " + maxAttempts);
            }
            maxAttempts = n;
            return this;
        }

        /** A listener for the deferral queue's events (default none); see {@link QueueListener}. */
        public Builder queueListener(QueueListener listener) {
            queueListener = Require.setOnce("queueListener", queueListener, listener);
            return this;
        }

        /**
         * Headers added to every deferred message when it is stored (default none), e.g. the caller's trace
         * context; see {@code DelayQueue.Builder.headers}. A message deferred again keeps its headers.
         */
        public Builder queueHeaders(Supplier<Map<String, String>> headers) {
            queueHeaders = Require.setOnce("queueHeaders", queueHeaders, headers);
            return this;
        }

        /** Builds it. */
        public Deferrals build() {
            return new Deferrals(this);
        }
    }
}
