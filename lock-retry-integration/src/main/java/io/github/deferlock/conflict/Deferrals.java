package io.github.deferlock.conflict;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueException;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobHandler;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.delay.RedisQueues;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.RegistryBeacon;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Where {@link OnConflict#DEFER} stores messages whose lock was taken, and the worker that runs them with the
 * {@link ConflictAwareHandler} of the same name, under the same lock. Any process that builds handlers with the
 * same names over the same queue can run the deferred messages of the others.
 *
 * <p>{@link DeferMode#ORDERED} (the default): a message is parked behind its key, in a FIFO beside the lock;
 * new messages of a key with parked work park behind it; a worker thread waits for the key as the lock's
 * waiters do and runs the parked messages right after the release, in order ({@link #maxParked()}, {@link
 * #parkedOverflow()}, {@link #drainWait()}). The {@link DelayQueue} holds the drain tokens that say which keys
 * to drain, and the dead letters. {@link DeferMode#TIMED}: the message goes into the {@link DelayQueue} and is
 * tried again after the backoff, deferred again while the key is taken, dead-lettered after {@link
 * #maxDeferrals()}. See docs/strategies.md.
 *
 * <p>With {@link DeferMode#ORDERED} a thread of this object looks, every drainer lease ({@link #drainWait()} plus
 * the queue's visibility timeout), at the keys this process parked behind or drained, and gives parked work
 * whose drain token is gone (lost in a failover, dead-lettered) a new one: one script per remembered key per
 * lease, at most 10,000 keys (docs/lock-keys.md, "The orphan sweep"). {@link #close()} stops it.
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
 * <p>Defaults: ORDERED, 10,000 parked messages per key, THROW on overflow, drain wait 10 s, backoff exponential
 * 50 ms → 30 s (factor 2, 20 % jitter), 20 deferrals (TIMED), done markers kept 1 day. Threadsafe once built;
 * the builder is not.
 */
public final class Deferrals implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Deferrals.class);

    private final DelayQueue<DeferredMessage> queue;
    private final Backoff backoff;
    private final int maxDeferrals;
    private final Duration doneTtl;
    private final UnifiedJedis redis;
    private final String name;
    private final ObjectMapper mapper;
    private final boolean allowEvictionPolicy;
    private final DeferMode mode;
    private final int maxParked;
    private final ParkedOverflow parkedOverflow;
    private final Duration drainWait;
    private final Map<String, ConflictAwareHandler<?>> handlers = new ConcurrentHashMap<>();
    private final Map<DelayQueueWorker<DeferredMessage>, Boolean> workers = new ConcurrentHashMap<>();
    private final OrphanSweep<OrphanAdoption.Key> orphans;

    private Deferrals(Builder b) {
        this.redis = b.redis;
        this.name = b.name;
        this.mapper = Require.orDefault(b.mapper, new ObjectMapper());
        this.backoff = Require.orDefault(
                b.backoff,
                Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(30), 2.0)
                        .withJitter(0.2));
        this.maxDeferrals = Require.orDefault(b.maxDeferrals, 20);
        this.doneTtl = Require.orDefault(b.doneTtl, Duration.ofDays(1));
        this.allowEvictionPolicy = Require.orDefault(b.allowEvictionPolicy, false);
        this.mode = Require.orDefault(b.mode, DeferMode.ORDERED);
        this.maxParked = Require.orDefault(b.maxParked, 10_000);
        this.parkedOverflow = Require.orDefault(b.parkedOverflow, ParkedOverflow.THROW);
        this.drainWait = Require.orDefault(b.drainWait, Duration.ofSeconds(10));
        DelayQueue.Builder<DeferredMessage> qb = (b.queues != null
                        ? b.queues.builder(name, DeferredMessage.class)
                        : DelayQueue.builder(redis, name, DeferredMessage.class))
                .objectMapper(mapper);
        if (b.visibilityTimeout != null) {
            qb.visibilityTimeout(b.visibilityTimeout);
        }
        if (b.maxAttempts != null) {
            qb.maxAttempts(b.maxAttempts);
        }
        if (b.queueListener != null) {
            qb.listener(b.queueListener);
        }
        if (b.queueHeaders != null) {
            qb.headers(b.queueHeaders);
        }
        this.queue = qb.build();
        this.orphans = new OrphanSweep<>(
                name, MAX_REMEMBERED_KEYS, drainerLeaseMillis(), new OrphanAdoption(queue, drainerLeaseMillis()));
    }

    /** The most lock keys a process remembers for its orphan sweep ({@link #rememberParked}). */
    static final int MAX_REMEMBERED_KEYS = 10_000;

    /**
     * Returns a builder for the deferral queue named {@code queueName} on {@code redis}.
     *
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     */
    public static Builder builder(UnifiedJedis redis, String queueName) {
        return new Builder(redis, null, queueName);
    }

    /**
     * Returns a builder for the deferral queue named {@code queueName}, built through {@code queues}: on its
     * client, and its workers share the notice bus (one pub/sub connection) of every queue built through it
     * (see {@link RedisQueues}).
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name breaks the queue name rule (docs/names.md)
     */
    public static Builder builder(RedisQueues queues, String queueName) {
        Require.notNull("queues", queues);
        return new Builder(queues.redis(), queues, queueName);
    }

    /** The delay queue holding deferred messages (for sizes, dead letters and requeueing). */
    public DelayQueue<DeferredMessage> queue() {
        return queue;
    }

    /** The backoff between deferrals: deferral {@code n} waits {@code backoff.delay(n)}. */
    public Backoff backoff() {
        return backoff;
    }

    /** After this many deferrals the next conflict dead-letters the message ({@link DeferMode#TIMED} only). */
    public int maxDeferrals() {
        return maxDeferrals;
    }

    /** How DEFER waits for a taken lock (default {@link DeferMode#ORDERED}). */
    public DeferMode mode() {
        return mode;
    }

    /** The most messages one key may have parked ({@link DeferMode#ORDERED}; default 10,000). */
    public int maxParked() {
        return maxParked;
    }

    /** What a message for a key with {@link #maxParked()} messages parked gets (default {@link ParkedOverflow#THROW}). */
    public ParkedOverflow parkedOverflow() {
        return parkedOverflow;
    }

    /**
     * How long a worker thread draining a key's parked messages waits for the key, queued as the lock's
     * waiters are and woken by its release, before it gives the thread back and tries again later (default 10 s;
     * {@link DeferMode#ORDERED}). Each such give-back is counted as a re-deferral ({@link
     * ConflictListener#onDeferred}).
     */
    public Duration drainWait() {
        return drainWait;
    }

    /**
     * How long a drain token stays the drainer of its key without renewing (its lease): after it, another
     * process's token takes over. Renewed at every step of the drain; covers the wait for the key.
     */
    long drainerLeaseMillis() {
        return drainWait.toMillis() + queue.visibilityTimeout().toMillis();
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

    /**
     * Remembers a lock key this process parked work behind, or drains (docs/lock-keys.md, "Parked work"): every
     * {@link #drainerLeaseMillis()} its sweep looks at the key, and gives parked work that has no drainer record
     * (its drain token was lost, dead-lettered, or ended before its park) a new drain token. No Redis call; the
     * key is forgotten once nothing is parked behind it, or when {@value #MAX_REMEMBERED_KEYS} newer keys are
     * remembered.
     */
    void rememberParked(String handlerName, String key, Parking parking) {
        orphans.remember(parking.parkedKey(), new OrphanAdoption.Key(handlerName, key, parking));
    }

    /** The orphan sweep, for tests. */
    OrphanSweep<OrphanAdoption.Key> orphanSweep() {
        return orphans;
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
     * another process that has the handler can take it). With {@link DeferMode#ORDERED} a drain token of an
     * unknown handler is run by a registered one, and a parked message of an unknown handler counts as a failed
     * run of its key's head: after {@code maxAttempts} it goes to the dead letters (naming the handler) and the
     * key's later messages go on. Stop it with {@link DelayQueueWorker#close()} or
     * {@link #close()}.
     *
     * @throws IllegalArgumentException when {@code concurrency} is less than 1, or more than the worker allows
     * @throws IllegalStateException when the server's {@code maxmemory-policy} is {@code allkeys-*} (Redis may
     *     evict deferred messages) and the deferrals were not built with {@link
     *     Builder#allowEvictionPolicy(boolean) allowEvictionPolicy(true)}
     */
    public DelayQueueWorker<DeferredMessage> startWorker(int concurrency) {
        Require.atLeast("concurrency", concurrency, 1);
        if (!allowEvictionPolicy) {
            refuseEvictingServer();
        }
        DelayQueueWorker<DeferredMessage> worker = DelayQueueWorker.builder(queue, this::runDue)
                .concurrency(concurrency)
                .allowEvictionPolicy(allowEvictionPolicy)
                .build();
        workers.put(worker, Boolean.TRUE);
        new RegistryBeacon(Registry.Kind.DEFERRALS).touch(redis, name); // the worker keeps it alive as a queue
        worker.start();
        return worker;
    }

    /**
     * Refuses an {@code allkeys-*} server with advice this class's own API can follow. When {@code INFO} is
     * not permitted this says nothing, and the worker's own check (which also tries {@code CONFIG GET}) decides.
     */
    private void refuseEvictingServer() {
        String info;
        try {
            info = redis.info("memory");
        } catch (RuntimeException e) {
            return;
        }
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("maxmemory_policy:")) {
                String policy = line.substring("maxmemory_policy:".length()).trim();
                if (policy.startsWith("allkeys-")) {
                    throw new IllegalStateException("deferral queue '" + name + "': the server's maxmemory-policy is "
                            + policy + ", so Redis may evict deferred messages and silently drop them; set"
                            + " maxmemory-policy to noeviction (or a volatile-* policy: queue keys have no TTL), or"
                            + " build the deferrals with Deferrals.builder(redis, \"" + name
                            + "\").allowEvictionPolicy(true)");
                }
                return;
            }
        }
    }

    /**
     * The handler {@link #startWorker(int)} runs: each due message with its registered handler, under its lock.
     * For a worker built by the caller, e.g. with its handler wrapped in an observation.
     */
    public JobHandler<DeferredMessage> jobHandler() {
        return this::runDue;
    }

    /** The handler registered under {@code handlerName}, or null. */
    ConflictAwareHandler<?> handler(String handlerName) {
        return handlers.get(handlerName);
    }

    private void runDue(Job<DeferredMessage> job) throws Exception {
        DeferredMessage m = job.payload();
        ConflictAwareHandler<?> handler = handlers.get(m.handler());
        if (handler == null && DeferredMessage.DRAIN.equals(m.kind()) && !handlers.isEmpty()) {
            // the parker's handler is not here (renamed, or another queue's): any handler of this queue drains
            // the key; a parked head of an unknown handler is then counted as failing and dead-lettered
            handler = handlers.values().iterator().next();
        }
        if (handler == null
                && DeferredMessage.DEAD.equals(m.kind())
                && !job.lastError().equals(Optional.ofNullable(m.reason()))) {
            queue.deadLetter(job, m.reason()); // a carrier needs no handler to move to the dead letters
            return;
        }
        if (handler == null) {
            throw new IllegalStateException("no handler named '" + m.handler() + "' is registered in this process "
                    + "for deferral queue '" + name + "'");
        }
        if (DeferredMessage.DRAIN.equals(m.kind())) {
            try {
                handler.runDrain(job); // the handler's own failures are counted inside: what escapes is ours
            } catch (RuntimeException e) {
                waitOutOutage(job, e);
            }
        } else if (DeferredMessage.DEAD.equals(m.kind())) {
            handler.runDeadCarrier(job);
        } else {
            handler.runDeferred(job);
        }
    }

    /** The delay before a drain token that met a Redis failure is due again. */
    private static final Duration OUTAGE_DELAY = Duration.ofSeconds(1);

    /** The longest pause between two tries to reschedule a drain token while Redis is unreachable. */
    private static final long MAX_OUTAGE_PAUSE_MS = 1_000;

    /**
     * A drain token met an infrastructure failure (Redis unreachable, {@code LOADING}, a failover): it is due
     * again after {@link #OUTAGE_DELAY} without spending an attempt, so an outage never dead-letters it and
     * strands the key's parked work. The reschedule is tried with a backoff (50 ms doubling to 1 s) until Redis
     * takes it; when the job's claim is lost meanwhile (Redis came back after its visibility timeout) the queue
     * redelivers it, and an interrupt (the worker closing) gives it back. Any other failure is rethrown.
     */
    void waitOutOutage(Job<DeferredMessage> job, RuntimeException failure) throws InterruptedException {
        if (!isInfrastructure(failure)) {
            throw failure;
        }
        if (job.isSettled()) {
            return;
        }
        log.warn(
                "deferral queue '{}': drain {} of lock '{}' met a Redis failure; due again in {} (no attempt spent):"
                        + " {}",
                name,
                job.id(),
                job.payload().key(),
                OUTAGE_DELAY,
                failure.toString());
        long pause = 50;
        while (true) {
            try {
                queue.reschedule(job, OUTAGE_DELAY, null);
                return;
            } catch (RuntimeException again) {
                if (!isInfrastructure(again)) {
                    throw again;
                }
            }
            if (job.isClaimLost()) {
                return; // redelivered after its visibility timeout: the worker settles nothing
            }
            Thread.sleep(pause);
            pause = Math.min(MAX_OUTAGE_PAUSE_MS, pause * 2);
        }
    }

    /**
     * Whether {@code e} is a failure of Redis rather than of a handler: a Jedis error, a queue's or a lock's
     * error other than a conflict or a lost lock, or one caused by such an error.
     */
    static boolean isInfrastructure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof JedisException || t instanceof DelayQueueException) {
                return true;
            }
            if (t instanceof LockException
                    && !(t instanceof LockConflictException)
                    && !(t instanceof LockLostException)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the workers this object started (gracefully: running messages finish) and the sweep that looks for
     * parked work left without a drain token (docs/lock-keys.md, "Parked work").
     */
    @Override
    public void close() {
        orphans.close();
        workers.keySet().forEach(DelayQueueWorker::close);
        workers.clear();
    }

    /**
     * Builds {@link Deferrals}. Each setting may be set once; an unset one takes its default when built. Not
     * threadsafe.
     */
    public static final class Builder {
        private final UnifiedJedis redis;
        private final RedisQueues queues; // null: a queue of its own
        private final String name;
        private ObjectMapper mapper;
        private Backoff backoff;
        private Integer maxDeferrals;
        private Duration doneTtl;
        private Duration visibilityTimeout;
        private Integer maxAttempts;
        private Boolean allowEvictionPolicy;
        private QueueListener queueListener;
        private Supplier<Map<String, String>> queueHeaders;
        private DeferMode mode;
        private Integer maxParked;
        private ParkedOverflow parkedOverflow;
        private Duration drainWait;

        private Builder(UnifiedJedis redis, RedisQueues queues, String name) {
            this.redis = Require.notNull("redis", redis);
            this.queues = queues;
            Require.notNull("queueName", name);
            Names.requireValid(Names.Kind.QUEUE_NAME, name);
            this.name = name;
        }

        /** The ObjectMapper for messages (default a plain {@code new ObjectMapper()}, no default typing). */
        public Builder objectMapper(ObjectMapper m) {
            mapper = Require.setOnce("objectMapper", mapper, m);
            return this;
        }

        /** The delay before deferral {@code n} (default exponential 50 ms → 30 s, factor 2, 20 % jitter). */
        public Builder backoff(Backoff b) {
            backoff = Require.setOnce("backoff", backoff, b);
            return this;
        }

        /** How many deferrals before a message is dead-lettered (default 20); at least 1. */
        public Builder maxDeferrals(int n) {
            Require.atLeast("maxDeferrals", n, 1);
            maxDeferrals = Require.setOnce("maxDeferrals", maxDeferrals, n);
            return this;
        }

        /** How long processed message ids are remembered for dedup (default 1 day); positive. */
        public Builder doneMarkerTtl(Duration ttl) {
            Require.positive("doneMarkerTtl", ttl);
            doneTtl = Require.setOnce("doneMarkerTtl", doneTtl, ttl);
            return this;
        }

        /** The queue's visibility timeout for a running deferred message (default: the queue's). */
        public Builder visibilityTimeout(Duration d) {
            visibilityTimeout = Require.setOnce("visibilityTimeout", visibilityTimeout, d);
            return this;
        }

        /**
         * How many times a deferred message whose handler throws is tried (default: the queue's); at least 1. A
         * parked message ({@link DeferMode#ORDERED}) is tried as often, {@link #backoff} apart, holding its key's
         * later messages, and then goes to the dead letters ({@link DeadLetterReason#HANDLER_FAILED}).
         */
        public Builder maxAttempts(int n) {
            Require.atLeast("maxAttempts", n, 1);
            maxAttempts = Require.setOnce("maxAttempts", maxAttempts, n);
            return this;
        }

        /**
         * Whether {@link #startWorker(int)} starts a worker on a server whose {@code maxmemory-policy} is
         * {@code allkeys-*}, where Redis may evict deferred messages (default false: it refuses). With true it
         * starts and the worker logs a WARN.
         */
        public Builder allowEvictionPolicy(boolean allow) {
            allowEvictionPolicy = Require.setOnce("allowEvictionPolicy", allowEvictionPolicy, allow);
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

        /**
         * How DEFER waits for a taken lock (default {@link DeferMode#ORDERED}: parked behind the key, run after its
         * release in the key's order; {@link DeferMode#TIMED}: retried after the backoff, no order).
         */
        public Builder mode(DeferMode m) {
            mode = Require.setOnce("mode", mode, m);
            return this;
        }

        /**
         * The most messages one key may have parked (default 10,000); at least 1. A message over it gets {@link
         * #onParkedOverflow}.
         */
        public Builder maxParked(int n) {
            Require.atLeast("maxParked", n, 1);
            maxParked = Require.setOnce("maxParked", maxParked, n);
            return this;
        }

        /** What a message over {@link #maxParked} gets (default {@link ParkedOverflow#THROW}). */
        public Builder onParkedOverflow(ParkedOverflow p) {
            parkedOverflow = Require.setOnce("onParkedOverflow", parkedOverflow, p);
            return this;
        }

        /**
         * How long a worker thread draining a key waits for it before giving the thread back (default 10 s);
         * positive, at most 1 hour. See {@link Deferrals#drainWait()}.
         */
        public Builder drainWait(Duration d) {
            Require.positive("drainWait", d);
            Require.within("drainWait", d, Duration.ZERO, Duration.ofHours(1));
            drainWait = Require.setOnce("drainWait", drainWait, d);
            return this;
        }

        /** Builds it. */
        public Deferrals build() {
            return new Deferrals(this);
        }
    }
}
