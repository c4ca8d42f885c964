package io.github.deferlock.delay;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.internal.DeadCause;
import io.github.deferlock.delay.internal.Envelope;
import io.github.deferlock.delay.internal.EvictionPolicyProbe;
import io.github.deferlock.delay.internal.JobIds;
import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.delay.internal.QueueScripts;
import io.github.deferlock.delay.internal.QueueTransport;
import io.github.deferlock.delay.internal.ScheduleScripts;
import io.github.deferlock.delay.internal.WakeBus;
import io.github.deferlock.redis.internal.Durations;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A reliable delay queue in Redis: jobs become due at a time given by the Redis server clock, are claimed
 * by workers with a visibility timeout, and are acked, retried with {@link Backoff}, or moved to the dead
 * letters after the max attempts. Delivery is at least once and never before the due time.
 *
 * <pre>{@code
 * DelayQueue<Email> queue = DelayQueue.builder(redis, "emails", Email.class)
 *         .visibilityTimeout(Duration.ofMinutes(1))
 *         .build();
 * queue.enqueue(new Email("ada@example.com", "Welcome"), Duration.ofMinutes(10));
 * }</pre>
 *
 * <p>Jobs may carry headers, a small string map stored with the job ({@link NewJob#withHeader}, {@link
 * Builder#headers}). The queue tells its {@link Builder#listener listener} of every job it stores and of every
 * job it moves to the dead letters itself.
 *
 * <p>A queue can be paused for every process ({@link #pause()}: its workers claim nothing until {@link
 * #resume()}, enqueues go on), and an enqueue can replace a waiting job of the same id or debounce it ({@link
 * NewJob#replacing}, {@link NewJob#debounce}). Jobs may carry a priority ({@link NewJob#withPriority}, 0 to {@link
 * #MAX_PRIORITY}): among due jobs the highest is claimed first, equal ones in due order; and a handler may report
 * its progress ({@link Job#progress(int, String)}), which {@link #get(String)} and the ops tools show. Jobs may carry
 * a concurrency key ({@link NewJob#withConcurrencyKey}): with a limit set ({@link #concurrencyKeys()}), at most that
 * many jobs of one key are claimed at once, across every process; the others wait, held aside, until a job of their
 * key ends.
 *
 * <p>Every state change is one Lua script call on keys that share the hash tag {@code {name}} (see
 * docs/queue-keys.md), so a queue works the same on standalone Redis, Sentinel and Cluster. Payloads are
 * JSON written by Jackson for the bound type, with no default typing.
 *
 * <p>Redis failures are thrown as {@link DelayQueueException} with the Jedis exception as the cause; a
 * pooled connection that the server closed is retried transparently. With {@link Builder#waitForReplicas}, an
 * enqueue or ack that too few replicas acknowledged is also a {@link DelayQueueException}, although the write
 * was applied on the primary.
 *
 * <p>Many queues on one client: build them through one {@link RedisQueues} ({@code
 * RedisQueues.on(redis).builder("emails", Email.class)}), so that their workers share one pub/sub
 * subscription connection. A queue built with {@code DelayQueue.builder} has a notice bus of its own: while
 * any of its workers runs it holds one subscription connection of the client's pool.
 *
 * <p>Instances are threadsafe and cheap; apart from their workers' subscription (above) they hold no
 * connection of their own.
 *
 * @param <T> the payload type
 */
public final class DelayQueue<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueue.class);

    /** The largest claim. */
    static final int MAX_CLAIM = QueueScripts.MAX_CLAIM;
    /** The most acks per script call ({@link #ackAll(List)}, or riding along with a claim). */
    static final int MAX_ACKS = QueueScripts.MAX_ACKS;
    /** The most renewals per script call ({@link #extendAll(List)}). */
    static final int MAX_EXTENDS = QueueScripts.MAX_EXTENDS;
    /**
     * How long a write call's replay record lives: longer than any resend of the call (our retry and the
     * cluster client's), so a resent claim, ack, cancel or enqueue is recognised as the same call.
     */
    static final long REPLAY_TTL_MS = QueueScripts.REPLAY_TTL_MS;

    private static final int MAX_ERROR_CHARS = 4000;
    /** The earliest due time reported as requested: -2^53 ms, below which a Lua number is not exact. */
    private static final Instant EARLIEST_REPORTED = Instant.ofEpochMilli(-(1L << 53));

    /** The most dead letters one {@link DeadLetters#list(int)} call returns, so one call stays cheap for Redis. */
    public static final int MAX_DEAD_LIST = 1000;

    /**
     * The longest delay, due time ahead, visibility timeout or backoff step accepted: 366 days. Longer ones
     * are refused as a likely unit mistake (and would overflow the server's millisecond scores).
     */
    public static final Duration MAX_DELAY = Duration.ofDays(366);

    /** The longest concurrency key ({@link NewJob#withConcurrencyKey}), in UTF-8 bytes (at least 1). */
    public static final int MAX_CONCURRENCY_KEY_BYTES = 128;

    /** The highest job priority ({@link NewJob#withPriority}); 0, the default, is the lowest. */
    public static final int MAX_PRIORITY = 9;

    /** The most headers one job carries ({@link NewJob#withHeader}, {@link Builder#headers}). */
    public static final int MAX_HEADERS = 32;
    /** The longest header key, in UTF-8 bytes (at least 1). */
    public static final int MAX_HEADER_KEY_BYTES = 128;
    /** The most UTF-8 bytes of one job's header keys and values together: 8 KiB. */
    public static final int MAX_HEADERS_BYTES = 8 * 1024;

    private final QueueConfig config;
    private final QueueKeys keys;
    /**
     * When a worker's idle probe last found this queue without jobs and schedules ({@link System#nanoTime()}), or
     * 0: the schedule ticker skips its own look within {@link Schedules#MAX_TICK_MS} of it.
     */
    volatile long emptyProbedAt;

    private final JobIds ids;
    private final QueueTransport transport;
    private final QueueScripts scripts;
    private final PayloadCodec<T> codec;
    private final DeadLetters deadLetters;
    private final Schedules<T> schedules;
    private final ConcurrencyKeys concurrencyKeys;
    private final WakeBus wakeBus;
    /** Where the jobs this queue claims write their progress ({@link Job#progress(int, String)}). */
    private final Job.ProgressSink progressSink = new Job.ProgressSink() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public boolean write(Job<?> job, int percent, String note) {
            return scripts.progress(new QueueScripts.Receipt(job.id(), job.receipt()), percent, note);
        }
    };

    final io.github.deferlock.redis.internal.RegistryBeacon beacon =
            io.github.deferlock.redis.internal.RegistryBeacon.queue(); // its workers announce it (docs/names.md)

    private DelayQueue(QueueConfig config, WakeBus wakeBus) {
        this.config = config;
        this.wakeBus = wakeBus;
        this.keys = QueueKeys.of(config.name());
        this.ids = new JobIds();
        this.transport = new QueueTransport(config.redis(), config.name(), config.replicas(), config.replicaTimeout());
        this.scripts = new QueueScripts(transport, keys, ids);
        this.codec = new PayloadCodec<>(
                config.name(),
                config.mapper().readerFor(config.type()),
                config.mapper().writerFor(config.type()),
                config.maxPayloadBytes());
        this.deadLetters = new DeadLetters(scripts, () -> size(JobState.DEAD));
        this.concurrencyKeys = new ConcurrencyKeys(config.name(), transport, keys);
        this.schedules = new Schedules<>(
                config.name(), new ScheduleScripts(transport, keys, config.name()), codec, config.listener(), wakeBus);
        this.schedules.emptyProbes(() -> emptyProbedAt);
    }

    /**
     * Starts a builder for a queue of {@code type} payloads.
     *
     * @param redis the client (standalone, Sentinel or Cluster); the queue does not close it
     * @param name the queue name; it becomes the hash tag of the queue's keys, so it cannot contain {@code
     *     '{'} or {@code '}'}
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name is empty, over 200 UTF-8 bytes, not valid Unicode or contains a
     *     brace (docs/names.md)
     */
    public static <T> Builder<T> builder(UnifiedJedis redis, String name, Class<T> type) {
        return new Builder<>(redis, null, name, Require.notNull("type", type), null);
    }

    /**
     * Like {@link #builder(UnifiedJedis, String, Class)} for a generic payload type, e.g. {@code new
     * TypeReference<List<Order>>() {}}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the name is empty, over 200 UTF-8 bytes, not valid Unicode or contains a
     *     brace (docs/names.md)
     */
    public static <T> Builder<T> builder(UnifiedJedis redis, String name, TypeReference<T> type) {
        return new Builder<>(redis, null, name, null, Require.notNull("type", type));
    }

    /** A builder for a queue of a {@link RedisQueues}: its workers take their wake subscriptions from {@code bus}. */
    static <T> Builder<T> builder(
            UnifiedJedis redis, WakeBus bus, String name, Class<T> type, TypeReference<T> typeReference) {
        if (type == null) {
            Require.notNull("type", typeReference);
        }
        return new Builder<>(redis, Require.notNull("bus", bus), name, type, typeReference);
    }

    /** The queue name. */
    public String name() {
        return config.name();
    }

    /** The visibility timeout given to each claim. */
    public Duration visibilityTimeout() {
        return config.visibilityTimeout();
    }

    /** Deliveries after which a failing job goes to the dead letters. */
    public int maxAttempts() {
        return config.maxAttempts();
    }

    /** The backoff a {@link #nack(Job, String, Duration)} without a delay uses. */
    public Backoff backoff() {
        return config.backoff();
    }

    /** The largest encoded payload accepted, in bytes. */
    public int maxPayloadBytes() {
        return config.maxPayloadBytes();
    }

    // ---------------------------------------------------------------- enqueue

    /**
     * Enqueues a job due now with a generated id. One round trip.
     *
     * @throws NullPointerException when {@code payload} is null
     * @throws IllegalArgumentException when the encoded payload is over {@link #maxPayloadBytes()} or cannot
     *     be encoded
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult enqueue(T payload) {
        return enqueueOne(null, payload, Duration.ZERO, null, Map.of());
    }

    /**
     * Enqueues a job due after {@code delay}, measured by the Redis server clock, with a generated id.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code delay} is negative or over {@link #MAX_DELAY}, or the
     *     payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult enqueue(T payload, Duration delay) {
        return enqueueOne(null, payload, requireDelay("delay", delay), null, Map.of());
    }

    /**
     * Enqueues a job with the caller's id, due after {@code delay}. Idempotent while the job exists: when a
     * job with this id is due, in flight or dead, nothing is written and the result says {@code
     * duplicate()}. Once the job is acked or cancelled the id may be used again. To replace a waiting job of
     * this id instead, or to debounce, enqueue a {@link NewJob#replacing} or {@link NewJob#debounce} job.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id breaks the name rule (docs/names.md), {@code delay} is negative or
     *     over {@link #MAX_DELAY}, or the payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult enqueue(String id, T payload, Duration delay) {
        return enqueueOne(requireId(id), payload, requireDelay("delay", delay), null, Map.of());
    }

    /**
     * Enqueues one job, with its headers ({@link NewJob#withHeader}); like the other {@code enqueue} and
     * {@code schedule} methods, which it covers (named apart from {@link #enqueue(Object)} so that a queue of
     * {@code Object} payloads cannot mistake one for the other). One round trip.
     *
     * @throws NullPointerException when {@code job} is null
     * @throws IllegalArgumentException when the id breaks the name rule, the delay or due time is more than
     *     {@link #MAX_DELAY} ahead, the payload is over the limit, or the headers with those of {@link
     *     Builder#headers} break a limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult enqueueJob(NewJob<T> job) {
        Require.notNull("job", job);
        String id = job.id() == null ? null : requireId(job.id());
        char replace = replaceCode(job.replace());
        return job.delay() != null
                ? enqueueOne(
                        id,
                        job.payload(),
                        requireDelay("delay", job.delay()),
                        null,
                        job.headers(),
                        replace,
                        job.priority(),
                        job.concurrencyKey())
                : enqueueOne(
                        id,
                        job.payload(),
                        null,
                        requireAt(job.at()),
                        job.headers(),
                        replace,
                        job.priority(),
                        job.concurrencyKey());
    }

    private static char replaceCode(NewJob.Replace replace) {
        if (replace == null) {
            return QueueScripts.KEEP;
        }
        return switch (replace) {
            case PAYLOAD -> QueueScripts.REPLACE_PAYLOAD;
            case DUE_TIME -> QueueScripts.REPLACE_DUE;
            case PAYLOAD_AND_DUE_TIME -> QueueScripts.REPLACE_BOTH;
        };
    }

    /**
     * Enqueues a job due at {@code at} (compared with the Redis server clock; a time in the past is due at
     * once), with a generated id. The result, {@link #get(String)} and the claimed {@link Job} report {@code
     * at} (to the millisecond) as the due time, also before 1970; jobs due before 1970 all wait with the
     * earliest score, so they come out in enqueue order among themselves. A time before -2^53 ms (about
     * 283,000 BC) is reported as that.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code at} is more than {@link #MAX_DELAY} ahead or the payload is
     *     over the limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult schedule(T payload, Instant at) {
        return enqueueOne(null, payload, null, requireAt(at), Map.of());
    }

    /**
     * Like {@link #schedule(Object, Instant)} with the caller's id; idempotent like {@link #enqueue(String,
     * Object, Duration)}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id is empty or too long, {@code at} is more than {@link
     *     #MAX_DELAY} ahead, or the payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult schedule(String id, T payload, Instant at) {
        return enqueueOne(requireId(id), payload, null, requireAt(at), Map.of());
    }

    /**
     * Enqueues many payloads with generated ids, all due after {@code delay}; see {@link #enqueueAll(List)}.
     *
     * @throws NullPointerException when an argument or a payload is null
     * @throws IllegalArgumentException when {@code delay} is negative or a payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public List<EnqueueResult> enqueueAll(Collection<? extends T> payloads, Duration delay) {
        Require.notNull("payloads", payloads);
        requireDelay("delay", delay);
        List<NewJob<T>> jobs = new ArrayList<>(payloads.size());
        for (T p : payloads) {
            jobs.add(NewJob.of(p, delay));
        }
        return enqueueAll(jobs);
    }

    /**
     * Enqueues many jobs in one pipeline (a few hundred jobs per script call), returning one result per job in
     * order. Every payload is encoded and checked before anything is written. Not atomic as a whole: on a
     * failure part of the batch may be written; running the same batch again is safe for jobs with caller
     * ids (they are reported as duplicates). {@link Builder#headers} is evaluated once for the whole batch.
     *
     * @throws NullPointerException when {@code jobs} or one of them is null
     * @throws IllegalArgumentException when a payload is over the limit, a caller id is too long, a delay or
     *     due time is more than {@link #MAX_DELAY} ahead, or a job's headers break a limit
     * @throws DelayQueueException when Redis fails
     */
    public List<EnqueueResult> enqueueAll(List<NewJob<T>> jobs) {
        Require.notNull("jobs", jobs);
        Map<String, String> defaults = config.defaultHeaders();
        List<QueueScripts.NewEntry> entries = new ArrayList<>(jobs.size());
        for (NewJob<T> job : jobs) {
            Require.notNull("a job", job);
            String id = job.id() != null ? requireId(job.id()) : ids.next();
            boolean absolute = job.delay() == null;
            long ms = absolute ? atMillis(requireAt(job.at())) : toMillis(requireDelay("delay", job.delay()));
            byte[] field = codec.field(
                    job.priority(), job.concurrencyKey(), JobHeaders.merge(defaults, job.headers()), job.payload());
            entries.add(
                    new QueueScripts.NewEntry(id, job.id() != null, absolute, ms, field, replaceCode(job.replace())));
        }
        List<QueueScripts.Stored> stored = scripts.enqueueAll(entries);
        List<EnqueueResult> results = new ArrayList<>(stored.size());
        for (int i = 0; i < stored.size(); i++) {
            results.add(enqueued(entries.get(i), stored.get(i)));
        }
        return results;
    }

    private EnqueueResult enqueueOne(String id, T payload, Duration delay, Instant at, Map<String, String> own) {
        return enqueueOne(id, payload, delay, at, own, QueueScripts.KEEP, 0, null);
    }

    private EnqueueResult enqueueOne(
            String id,
            T payload,
            Duration delay,
            Instant at,
            Map<String, String> own,
            char replace,
            int priority,
            String concurrencyKey) {
        byte[] field = codec.field(priority, concurrencyKey, JobHeaders.merge(config.defaultHeaders(), own), payload);
        boolean callerId = id != null;
        QueueScripts.NewEntry entry = new QueueScripts.NewEntry(
                callerId ? id : ids.next(),
                callerId,
                at != null,
                at != null ? atMillis(at) : toMillis(delay),
                field,
                replace);
        return enqueued(entry, scripts.enqueue(entry));
    }

    /** The result of one enqueued job; tells the listener when it was stored. */
    private EnqueueResult enqueued(QueueScripts.NewEntry entry, QueueScripts.Stored stored) {
        Instant due = stored.dueMs() == null ? null : Instant.ofEpochMilli(stored.dueMs());
        EnqueueResult.Outcome outcome =
                switch (stored.status()) {
                    case 1 -> EnqueueResult.Outcome.ADDED;
                    case 2 -> EnqueueResult.Outcome.REPLACED;
                    case 3 -> EnqueueResult.Outcome.RUNNING;
                    case 4 -> EnqueueResult.Outcome.DEAD;
                    // a generated id that exists was written by our own earlier try of the same call
                    default -> entry.callerId() ? EnqueueResult.Outcome.DUPLICATE : EnqueueResult.Outcome.ADDED;
                };
        EnqueueResult result = new EnqueueResult(
                entry.id(),
                outcome != EnqueueResult.Outcome.ADDED && outcome != EnqueueResult.Outcome.REPLACED,
                due,
                outcome);
        if (outcome == EnqueueResult.Outcome.ADDED) {
            // stored; when already claimed (a resend of our own call), it was due by the server's now
            config.listener()
                    .onEnqueued(config.name(), entry.id(), due != null ? due : Instant.ofEpochMilli(stored.nowMs()));
        }
        return result;
    }

    /** A due time for the script: sent as is (before 1970 too), floored at -2^53 ms. */
    private static long atMillis(Instant at) {
        return at.isBefore(EARLIEST_REPORTED) ? EARLIEST_REPORTED.toEpochMilli() : at.toEpochMilli();
    }

    // ---------------------------------------------------------------- claim and settle

    /**
     * Claims up to {@code max} due jobs, earliest due first (FIFO among equal due times), each with a
     * visibility deadline of now + {@link #visibilityTimeout()} and a fresh receipt. Before that it returns
     * in-flight jobs whose deadline passed to due (at most 100 per call), or to the dead letters when they
     * used {@link #maxAttempts()}. A job whose payload cannot be decoded goes to the dead letters with the
     * reason and is not returned. One round trip; bounded work in Redis.
     *
     * @param max how many jobs at most, 1 to 1000
     * @return the claimed jobs, possibly none
     * @throws IllegalArgumentException when {@code max} is out of range
     * @throws DelayQueueException when Redis fails
     */
    public List<Job<T>> claim(int max) {
        return claimBatch(max, List.of()).jobs();
    }

    /**
     * Claims like {@link #claim(int)}, first acking {@code acks} (at most {@link #MAX_ACKS}) in the same script
     * call; their results are in {@link ClaimBatch#acked()}, in order. The acked jobs are not marked settled
     * here: the caller reports each result.
     */
    ClaimBatch<T> claimBatch(int max, List<Job<T>> acks) {
        String token = callToken();
        ClaimBatch<T> batch = claimBatch(max, acks, token);
        callDone(token);
        return batch;
    }

    /**
     * {@link #claimBatch(int, List)} as the call named {@code token}: a call with the token of an earlier one
     * that ran (within 60 s) is its resend, answered with that call's ack results and jobs still in flight under
     * its receipts (see docs/queue-keys.md), so a caller whose claim failed can resend it with the same
     * arguments and not strand the jobs it took.
     */
    ClaimBatch<T> claimBatch(int max, List<Job<T>> acks, String token) {
        return claimBatch(scripts, max, acks, token, false);
    }

    /** A claim; {@code worker}: a {@link DelayQueueWorker}'s, which keeps the liveness mark (liveness.lua). */
    private ClaimBatch<T> claimBatch(QueueScripts via, int max, List<Job<T>> acks, String token, boolean worker) {
        Require.within("max", max, 1, MAX_CLAIM);
        Require.within("acks riding along with a claim", acks.size(), 0, MAX_ACKS);
        QueueScripts.ClaimReply reply = via.claim(
                max, config.visibilityTimeout().toMillis(), config.maxAttempts(), receipts(acks), token, worker);
        Instant visibleUntil = config.clock().instant().plus(config.visibilityTimeout());
        List<Job<T>> jobs = new ArrayList<>(reply.jobs().size());
        for (QueueScripts.Claimed claimed : reply.jobs()) {
            Job<T> job = decode(claimed, visibleUntil);
            if (job != null) {
                jobs.add(job);
            }
        }
        return new ClaimBatch<>(jobs, reply.nowMicros(), reply.nextWakeMs(), reply.acked());
    }

    /** One claimed job, or null when it cannot be read (then it was dealt with). */
    private Job<T> decode(QueueScripts.Claimed claimed, Instant visibleUntil) {
        String id = claimed.id();
        Envelope env;
        try {
            env = Envelope.parse(claimed.envelope());
        } catch (RuntimeException e) {
            // cannot happen with our own scripts; never let one bad entry strand the rest of the batch
            LOG.warn("queue '{}': job {} has an unreadable envelope and stays in flight: {}", name(), id, e.toString());
            return null;
        }
        T payload;
        Map<String, String> headers;
        try {
            headers = env.headers();
            payload = codec.decode(env);
        } catch (IOException | RuntimeException e) {
            deadLetterUndecodable(id, env, e);
            return null;
        }
        String error = claimed.lastError();
        return new Job<>(
                id,
                payload,
                env.attempts(),
                Instant.ofEpochMilli(env.dueMs()),
                env.receipt(),
                error.isEmpty() ? null : error,
                visibleUntil,
                headers,
                env.priority(),
                env.key(),
                progressSink);
    }

    private void deadLetterUndecodable(String id, Envelope env, Exception e) {
        String reason = "undecodable payload: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        LOG.warn("queue '{}': job {} moved to the dead letters, {}", name(), id, reason);
        try {
            moveToDeadLetters(
                    "deadLetter", new QueueScripts.Receipt(id, env.receipt()), reason, DeadCause.UNDECODABLE_PAYLOAD);
        } catch (RuntimeException settleFailure) {
            LOG.warn(
                    "queue '{}': dead-lettering job {} failed, it will be redelivered: {}",
                    name(),
                    id,
                    settleFailure.toString());
        }
    }

    /**
     * Acks a claimed job: it is deleted.
     *
     * @return true when acked; false when the receipt is stale (the job was returned to due after its
     *     visibility timeout, redelivered, settled or cancelled) — its work may be done twice
     * @throws NullPointerException when {@code job} is null
     * @throws DelayQueueException when Redis fails
     */
    public boolean ack(Job<T> job) {
        Require.notNull("job", job);
        boolean acked = ack(job.id(), job.receipt());
        job.markSettled();
        return acked;
    }

    /**
     * Acks a claimed job by its id and the receipt of its claim ({@link Job#id()}, {@link Job#receipt()}), for a
     * consumer that settles the job elsewhere than where it holds the {@link Job} (another process, after a
     * restart, from a message). The same as {@link #ack(Job)}.
     *
     * @return true when acked (also when this call was resent after a lost reply and the first try acked it);
     *     false when the receipt is stale (the job was returned to due after its visibility timeout,
     *     redelivered, settled or cancelled)
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id is empty or over 512 bytes, or the receipt is empty
     * @throws DelayQueueException when Redis fails
     */
    public boolean ack(String id, String receipt) {
        requireId(id);
        Require.notEmpty("receipt", receipt);
        return scripts.ack(
                        "ack",
                        List.of(new QueueScripts.Receipt(id, receipt)),
                        "job '" + id + "' is acked (deleted) on the primary",
                        true)
                .get(0);
    }

    /**
     * Acks many claimed jobs with one script call per {@link #MAX_ACKS} jobs (pipelined), instead of one round
     * trip each; with {@link Builder#waitForReplicas} one {@code WAIT} follows the whole batch. Each job is
     * judged on its own, as by {@link #ack(Job)}.
     *
     * @return one result per job, in order: true when acked, false when its receipt is stale (or the same job
     *     came earlier in the list)
     * @throws NullPointerException when {@code jobs} or one of them is null
     * @throws DelayQueueException when Redis fails (the jobs may or may not be acked: acking them again is
     *     safe and reports false for those that were)
     */
    public List<Boolean> ackAll(List<Job<T>> jobs) {
        return ackAll(jobs, true);
    }

    /**
     * {@link #ackAll(List)}; with {@code strict} false, too few replicas acknowledging is logged instead of
     * thrown (the acks are applied on the primary either way), so the caller keeps the per-job results.
     */
    List<Boolean> ackAll(List<Job<T>> jobs, boolean strict) {
        return ackAll(scripts, jobs, strict, null);
    }

    /** {@link #ackAll(List, boolean)} through {@code via}, as the call named {@code token} (null: a fresh one). */
    private List<Boolean> ackAll(QueueScripts via, List<Job<T>> jobs, boolean strict, String token) {
        Require.notNull("jobs", jobs);
        for (Job<T> job : jobs) {
            Require.notNull("a job", job);
        }
        if (jobs.isEmpty()) {
            return new ArrayList<>();
        }
        List<Boolean> out = via.ack(
                "ackAll", receipts(jobs), jobs.size() + " jobs are acked (deleted) on the primary", strict, token);
        for (Job<T> job : jobs) {
            job.markSettled();
        }
        return out;
    }

    /** True when writes are followed by {@code WAIT} ({@link Builder#waitForReplicas}). */
    boolean waitsForReplicas() {
        return transport.waitsForReplicas();
    }

    /**
     * Reports a failed delivery: the job is due again after {@code retryDelay} (or, when null, after {@link
     * #backoff()} for its attempt number), or goes to the dead letters with {@code error} when it has had
     * {@link #maxAttempts()} deliveries. Its headers stay with it.
     *
     * @param error the failure, stored as the job's last error (null: "no error message"; cut to 4000 chars)
     * @param retryDelay the delay before the next delivery, or null for the backoff
     * @return true when settled; false when the receipt is stale
     * @throws NullPointerException when {@code job} is null
     * @throws IllegalArgumentException when {@code retryDelay} is negative or over {@link #MAX_DELAY}
     * @throws DelayQueueException when Redis fails
     */
    public boolean nack(Job<T> job, String error, Duration retryDelay) {
        return nack(scripts, job, error, retryDelay, null);
    }

    /** {@link #nack(Job, String, Duration)} through {@code via}, as the call named {@code token} (null: fresh). */
    private boolean nack(QueueScripts via, Job<T> job, String error, Duration retryDelay, String token) {
        Require.notNull("job", job);
        Duration delay = retryDelay != null
                ? requireDelay("retryDelay", retryDelay)
                : config.backoff().delay(Math.max(1, job.attempts()));
        QueueScripts.Settled r = via.nack(
                "nack",
                receipt(job),
                errorText(error),
                toMillis(delay),
                config.maxAttempts(),
                DeadCause.ATTEMPTS_EXHAUSTED,
                token);
        job.markSettled();
        return r != QueueScripts.Settled.STALE;
    }

    /**
     * Moves a claimed job to the dead letters at once, with {@code reason} as its last error ({@link
     * DeadLetterCause#DEAD_LETTERED}); the listener hears {@link QueueListener#onDeadLettered}.
     *
     * @return true when moved; false when the receipt is stale
     * @throws NullPointerException when {@code job} or {@code reason} is null
     * @throws DelayQueueException when Redis fails
     */
    public boolean deadLetter(Job<T> job, String reason) {
        Require.notNull("job", job);
        Require.notNull("reason", reason);
        boolean moved = moveToDeadLetters("deadLetter", receipt(job), reason, DeadCause.DEAD_LETTERED);
        job.markSettled();
        return moved;
    }

    /** Moves an in-flight job to the dead letters now; tells the listener when it moved. */
    private boolean moveToDeadLetters(String op, QueueScripts.Receipt job, String reason, DeadCause cause) {
        String text = errorText(reason);
        boolean moved = scripts.nack(op, job, text, 0, 0, cause, null) != QueueScripts.Settled.STALE;
        if (moved) {
            config.listener().onDeadLettered(name(), job.id(), text);
        }
        return moved;
    }

    /** The error text stored for a job: never empty, at most 4000 chars. */
    private static String errorText(String error) {
        String e = error == null || error.isEmpty() ? "no error message" : error;
        return e.length() > MAX_ERROR_CHARS ? e.substring(0, MAX_ERROR_CHARS) : e;
    }

    /**
     * Returns a claimed job to due at now + {@code delay} without counting this delivery as an attempt —
     * a deferral, not a failure — optionally with a new payload. The last error and the headers are kept.
     *
     * @param replacementPayload the payload to store instead, or null to keep the current one
     * @return true when rescheduled; false when the receipt is stale
     * @throws NullPointerException when {@code job} or {@code delay} is null
     * @throws IllegalArgumentException when {@code delay} is negative or over {@link #MAX_DELAY}, or the
     *     replacement is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public boolean reschedule(Job<T> job, Duration delay, T replacementPayload) {
        return reschedule(scripts, job, delay, replacementPayload, null);
    }

    /** {@link #reschedule(Job, Duration, Object)} through {@code via}, as the call named {@code token}. */
    private boolean reschedule(QueueScripts via, Job<T> job, Duration delay, T replacementPayload, String token) {
        Require.notNull("job", job);
        requireDelay("delay", delay);
        byte[] replacement = replacementPayload == null ? null : codec.field(job.headers(), replacementPayload);
        boolean r = via.reschedule(receipt(job), toMillis(delay), replacement, token);
        job.markSettled();
        return r;
    }

    /**
     * Moves the visibility deadline of a claimed job to now + {@code visibility} (server clock), for a
     * handler that needs longer. Does not settle the job.
     *
     * @return true when extended; false when the receipt is stale
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code visibility} is not positive or over {@link #MAX_DELAY}
     * @throws DelayQueueException when Redis fails
     */
    public boolean extend(Job<T> job, Duration visibility) {
        Require.notNull("job", job);
        return extend(job.id(), job.receipt(), visibility);
    }

    /**
     * Like {@link #extend(Job, Duration)}, for a job known by its id and the receipt of its claim.
     *
     * @return true when extended; false when the receipt is stale
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id is empty or over 512 bytes, the receipt is empty, or
     *     {@code visibility} is not positive or over {@link #MAX_DELAY}
     * @throws DelayQueueException when Redis fails
     */
    public boolean extend(String id, String receipt, Duration visibility) {
        requireId(id);
        Require.notEmpty("receipt", receipt);
        Require.positive("visibility", visibility);
        Require.within("visibility", visibility, Duration.ZERO, MAX_DELAY);
        return scripts.extend(toMillis(visibility), List.of(new QueueScripts.Receipt(id, receipt)), false)
                        .get(0)
                > 0;
    }

    /**
     * Moves the visibility deadline of every given claimed job to now + {@link #visibilityTimeout()}: one script
     * call per {@link #MAX_EXTENDS} jobs (pipelined). A worker's renewal tick.
     *
     * @return one result per job, in order: false when its receipt is stale
     */
    List<Boolean> extendAll(List<Job<T>> jobs) {
        return extendAll(scripts, jobs, false);
    }

    /** Renewals; {@code worker}: a {@link DelayQueueWorker}'s, which keeps the liveness mark (liveness.lua). */
    private List<Boolean> extendAll(QueueScripts via, List<Job<T>> jobs, boolean worker) {
        List<Long> deadlines = via.extend(toMillis(config.visibilityTimeout()), receipts(jobs), worker);
        List<Boolean> out = new ArrayList<>(deadlines.size());
        for (long d : deadlines) {
            out.add(d > 0);
        }
        return out;
    }

    private static QueueScripts.Receipt receipt(Job<?> job) {
        return new QueueScripts.Receipt(job.id(), job.receipt());
    }

    private static List<QueueScripts.Receipt> receipts(List<? extends Job<?>> jobs) {
        List<QueueScripts.Receipt> out = new ArrayList<>(jobs.size());
        for (Job<?> job : jobs) {
            out.add(receipt(job));
        }
        return out;
    }

    // ---------------------------------------------------------------- inspection and management

    /**
     * Deletes a job in any state. A handler still running an in-flight job is not stopped, but its ack is
     * refused; a {@link DelayQueueWorker} running it learns at its next renewal that the claim is lost ({@link
     * Job#isClaimLost()}, and an interrupt with {@link DelayQueueWorker.Builder#interruptOnClaimLost}).
     * Idempotent under resend: a call resent after a lost reply reports what the first try did.
     *
     * @return true when the job existed
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public boolean cancel(String id) {
        return scripts.cancel(requireId(id));
    }

    /**
     * A snapshot of one job, with its headers.
     *
     * @return the job, or empty when there is no job with this id (never enqueued, acked or cancelled)
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public Optional<JobInfo> get(String id) {
        return scripts.info(requireId(id))
                .map(info -> JobInfo.of(
                        id,
                        Envelope.parse(info.envelope()),
                        info.lastError(),
                        info.score(),
                        info.progress(),
                        info.heldForKey()));
    }

    /**
     * How many jobs are in {@code state}; {@link JobState#DUE} counts jobs scheduled for later as well.
     *
     * @throws NullPointerException when {@code state} is null
     * @throws DelayQueueException when Redis fails
     */
    public long size(JobState state) {
        Require.notNull("state", state);
        if (state == JobState.DUE) {
            return stats().waiting(); // the due zset, those of the priority levels, the jobs held for their key
        }
        return scripts.size(
                switch (state) {
                    case DUE -> keys.due();
                    case IN_FLIGHT -> keys.inflight();
                    case DEAD -> keys.dead();
                });
    }

    /**
     * How long the earliest due job has been due (server clock); zero when no job is due yet. A growing value
     * means workers fall behind.
     *
     * @throws DelayQueueException when Redis fails
     */
    public Duration oldestDueAge() {
        QueueScripts.Head head = scripts.head();
        long nowMicros = head.nowMicros();
        if (head.headMs() < 0 || head.headMs() * 1000 >= nowMicros) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((nowMicros - head.headMs() * 1000) * 1000);
    }

    /**
     * This queue's sizes, oldest due age and monotonic counters (enqueued, acked, dead-lettered), in one
     * read-only script call: what gauges and dashboards read. Cheap (a few {@code ZCARD}s, one {@code ZCOUNT},
     * one {@code HMGET}) but not free: read it every few seconds, not per job.
     *
     * @throws DelayQueueException when Redis fails
     */
    public QueueStats stats() {
        return QueueStats.of(name(), scripts.stats());
    }

    /**
     * {@link #stats()} of the queue {@code name} without building a queue: for tools that watch queues they do
     * not own (a queue that does not exist has every count zero).
     *
     * @throws NullPointerException when {@code redis} or {@code name} is null
     * @throws IllegalArgumentException when {@code name} is not a valid queue name (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public static QueueStats stats(UnifiedJedis redis, String name) {
        Require.notNull("redis", redis);
        Require.notNull("name", name);
        Names.requireValid(Names.Kind.QUEUE_NAME, name);
        try {
            return QueueStats.of(name, (List<?>)
                    QueueScripts.statsScript().run(redis, QueueScripts.statsKeys(QueueKeys.of(name)), List.of()));
        } catch (redis.clients.jedis.exceptions.JedisException e) {
            throw new DelayQueueException("cannot read the stats of queue '" + name + "': " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- pause and resume

    /**
     * Pauses the queue, for every process: from the moment this call returns no claim takes a due job ({@link
     * #claim(int)} and the workers of every process get none; the claim script checks a marker key in Redis, so
     * clocks and the processes' own state do not matter). Jobs already claimed run to the end and are acked as
     * usual; enqueues, cancels, dead-letter actions and the return of expired in-flight jobs go on; a worker
     * started while the queue is paused stays idle. Paused workers cost what idle ones do: one claim call per
     * fallback poll (default 1 s) and one per wake notice. The state survives restarts of every worker (not a
     * flush of Redis). One script call; idempotent.
     *
     * @return true when this call paused the queue; false when it was paused already (or this call was resent
     *     after a lost reply)
     * @throws DelayQueueException when Redis fails
     */
    public boolean pause() {
        return scripts.pause(true);
    }

    /**
     * Resumes a paused queue: claims take due jobs again, and a wake notice makes idle workers claim at once
     * (a worker that missed the notice claims at its next fallback poll, default within 1 s). One script call;
     * idempotent.
     *
     * @return true when this call resumed the queue; false when it was not paused (or this call was resent after
     *     a lost reply)
     * @throws DelayQueueException when Redis fails
     */
    public boolean resume() {
        return scripts.pause(false);
    }

    /**
     * Whether the queue is paused ({@link #pause()}); {@link #stats()} tells it too, with the time it was
     * paused. One {@code EXISTS}.
     *
     * @throws DelayQueueException when Redis fails
     */
    public boolean isPaused() {
        return scripts.paused();
    }

    // ---------------------------------------------------------------- rate limit

    /**
     * Limits the queue to {@code limit}: at most {@code limit.rate()} job starts (claims) per {@code
     * limit.interval()} across every worker of every process, checked in the claim script with GCRA on the
     * server's clock (docs/delay-queue.md, "Rate limit per queue"). A claim takes at most what the limit allows
     * now; jobs over it stay due, in order, spend no attempt and are not failed; a worker whose claim the limit
     * cut sleeps until the next slot (woken early by close, by a change of the limit, or by a wake notice). The
     * limit is stored in Redis in the queue's slot, so every process shares it and it survives restarts (not a
     * flush of Redis); it replaces any earlier limit at once. A change publishes a wake notice so sleeping workers
     * claim under the new limit at once. {@link #claim(int)} obeys it too. One script call; idempotent.
     *
     * @return true when this call changed the limit; false when the queue had this limit already
     * @throws NullPointerException when {@code limit} is null
     * @throws DelayQueueException when Redis fails
     */
    public boolean rateLimit(QueueRateLimit limit) {
        return scripts.rateLimit(Require.notNull("limit", limit).stored());
    }

    /**
     * Removes the queue's rate limit (and its state): claims take full batches again, and a wake notice makes
     * sleeping workers claim at once. One script call; idempotent.
     *
     * @return true when this call removed a limit; false when the queue had none
     * @throws DelayQueueException when Redis fails
     */
    public boolean removeRateLimit() {
        return scripts.rateLimit(null);
    }

    /**
     * The queue's rate limit, if it has one ({@link #rateLimit(QueueRateLimit)}). One {@code GET}.
     *
     * @throws DelayQueueException when Redis fails
     */
    public Optional<QueueRateLimit> rateLimit() {
        return Optional.ofNullable(QueueRateLimit.parse(scripts.rateLimit()));
    }

    /**
     * The dead letters of this queue: list, requeue, purge and count them, e.g. {@code
     * queue.deadLetters().requeueAll()}.
     */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /**
     * The concurrency limits of this queue's keys, e.g. {@code queue.concurrencyKeys().limit(3)}: at most 3 jobs
     * of one concurrency key ({@link NewJob#withConcurrencyKey}) claimed at once, across every process. Stored in
     * Redis and checked by the claim script; see {@link ConcurrencyKeys}.
     */
    public ConcurrencyKeys concurrencyKeys() {
        return concurrencyKeys;
    }

    /**
     * The recurring schedules of this queue: upsert, list, get and remove them, e.g. {@code
     * queue.schedules().upsert("report", CronSpec.of("0 9 * * *", zone), payload)}. This queue's {@link
     * DelayQueueWorker}s fire them.
     */
    public Schedules<T> schedules() {
        return schedules;
    }

    /**
     * The oldest dead letters, oldest first.
     *
     * @param limit how many at most, 1 to {@link #MAX_DEAD_LIST}
     * @throws IllegalArgumentException when {@code limit} is out of range
     * @throws DelayQueueException when Redis fails
     * @deprecated use {@code deadLetters().list(limit)}
     */
    @Deprecated
    public List<DeadLetter> deadLetters(int limit) {
        return deadLetters.list(limit);
    }

    /**
     * Moves one dead letter back to due now, with its attempts reset to 0.
     *
     * @return true when moved; false when there is no dead job with this id
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     * @deprecated use {@code deadLetters().requeue(id)}
     */
    @Deprecated
    public boolean requeueDead(String id) {
        return deadLetters.requeue(id);
    }

    /**
     * Moves every dead letter back to due now (in script calls of 500), with attempts reset to 0.
     *
     * @return how many were moved
     * @throws DelayQueueException when Redis fails
     * @deprecated use {@code deadLetters().requeueAll()}
     */
    @Deprecated
    public long requeueAllDead() {
        return deadLetters.requeueAll();
    }

    /**
     * Deletes every dead letter (in script calls of 500).
     *
     * @return how many were deleted
     * @throws DelayQueueException when Redis fails
     * @deprecated use {@code deadLetters().purge()}
     */
    @Deprecated
    public long purgeDead() {
        return deadLetters.purge();
    }

    // ---------------------------------------------------------------- for the worker

    /**
     * The listener of this queue and its workers: the one given to the builder, wrapped so that a throwing
     * listener is logged and ignored, or {@link QueueListener#NONE}. For the worker's mechanisms.
     */
    QueueListener listener() {
        return config.listener();
    }

    UnifiedJedis redis() {
        return config.redis();
    }

    /** The notice bus this queue's workers subscribe on: its {@link RedisQueues}' or its own. */
    WakeBus wakeBus() {
        return wakeBus;
    }

    byte[] wakeChannel() {
        return keys.channel();
    }

    /**
     * The server's {@code maxmemory-policy} ({@link EvictionPolicyProbe}); empty when it cannot be read. On
     * Cluster the client asks one node only.
     */
    Optional<String> evictionPolicy() {
        return EvictionPolicyProbe.read(config.redis(), name());
    }

    /**
     * A fresh name for one write call (its replay record), unique like a generated id, from this queue's ids.
     * For the worker's claim calls.
     */
    String callToken() {
        return scripts.newCall();
    }

    /**
     * The call named {@code token} ({@link #callToken()}) got its reply and is not resent: its replay slot names
     * the next call ({@code ReplaySlots}).
     */
    void callDone(String token) {
        scripts.done(token);
    }

    /** The hooks for this queue's workers ({@link QueueCalls#of}): each call sent once. */
    WorkerHooks workerHooks() {
        return new WorkerHooks();
    }

    /**
     * The package-private hooks above as a worker calls them: through {@link QueueScripts#once()}, so each
     * call is sent once and the worker's {@link Settler} (settlements) and {@link DispatcherLoop} (claims, acks
     * sent alone) are its only retry layers; they resend a write under the token of its first try, so its
     * replay record recognises it. The queue's own methods keep the queue's retry.
     */
    final class WorkerHooks {
        private final QueueScripts once = scripts.once();

        private WorkerHooks() {}

        /** {@link DelayQueue#claimBatch(int, List, String)}. */
        ClaimBatch<T> claimBatch(int max, List<Job<T>> acks, String token) {
            return DelayQueue.this.claimBatch(once, max, acks, token, true);
        }

        /** {@link DelayQueue#ack(Job)} as the call named {@code token}. */
        boolean ack(Job<T> job, String token) {
            Require.notNull("job", job);
            boolean acked = once.ack(
                            "ack",
                            List.of(receipt(job)),
                            "job '" + job.id() + "' is acked (deleted) on the primary",
                            true,
                            token)
                    .get(0);
            job.markSettled();
            return acked;
        }

        /** {@link DelayQueue#ackAll(List, boolean)} as the call named {@code token}. */
        List<Boolean> ackAll(List<Job<T>> jobs, boolean strict, String token) {
            return DelayQueue.this.ackAll(once, jobs, strict, token);
        }

        /** {@link DelayQueue#nack(Job, String, Duration)} as the call named {@code token}. */
        boolean nack(Job<T> job, String error, Duration retryDelay, String token) {
            return DelayQueue.this.nack(once, job, error, retryDelay, token);
        }

        /** {@link DelayQueue#reschedule(Job, Duration, Object)} as the call named {@code token}. */
        boolean reschedule(Job<T> job, Duration delay, T replacementPayload, String token) {
            return DelayQueue.this.reschedule(once, job, delay, replacementPayload, token);
        }

        /** {@link DelayQueue#extendAll(List)}. */
        List<Boolean> extendAll(List<Job<T>> jobs) {
            return DelayQueue.this.extendAll(once, jobs, true);
        }

        /**
         * Whether the queue may have work or schedules: one {@code EXISTS} of its due, in-flight, held, priority
         * levels and schedule keys (all in the queue's slot). A Redis failure answers true: the claim that
         * follows meets it and is retried as usual.
         */
        boolean mayHaveWork() {
            try {
                String prefix = QueueKeys.prefix(name());
                boolean may = redis().exists(
                                        keys.due(),
                                        keys.inflight(),
                                        keys.heldCounts(),
                                        (prefix + "due:levels").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        (prefix + "schedule-next").getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        > 0;
                if (!may) {
                    emptyProbedAt = System.nanoTime();
                }
                return may;
            } catch (JedisException e) {
                return true;
            }
        }
    }

    // ---------------------------------------------------------------- argument rules

    /** A caller's job id: the name rule (docs/names.md). */
    static String requireId(String id) {
        Require.notNull("id", id);
        Names.requireValid(Names.Kind.JOB_ID, id); // one rule for every name (docs/names.md)
        return id;
    }

    /** A delay of 0 to {@link #MAX_DELAY}. */
    private static Duration requireDelay(String what, Duration delay) {
        Require.notNegative(what, delay);
        return Require.within(what, delay, Duration.ZERO, MAX_DELAY);
    }

    /** A due time at most {@link #MAX_DELAY} ahead of the client clock. */
    private Instant requireAt(Instant at) {
        Require.notNull("at", at);
        Instant now = config.clock().instant();
        if (at.isAfter(now) && Duration.between(now, at).compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "at must be at most " + Durations.format(MAX_DELAY) + " (MAX_DELAY) ahead, not " + at);
        }
        return at;
    }

    /** Whole milliseconds, rounded up: never due early. */
    private static long toMillis(Duration d) {
        long ms = d.toMillis();
        return d.minusMillis(ms).isZero() ? ms : ms + 1;
    }

    @Override
    public String toString() {
        return "DelayQueue[" + name() + "]";
    }

    /**
     * Builds a {@link DelayQueue}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the earlier value. An unset setting is {@code null} here and takes its
     * default when the queue is built. Not threadsafe.
     *
     * @param <T> the payload type
     */
    public static final class Builder<T> {
        private final UnifiedJedis redis;
        private final WakeBus bus; // null: the queue gets a bus of its own
        private final String name;
        private final Class<T> type;
        private final TypeReference<T> typeReference;
        private ObjectMapper objectMapper;
        private Duration visibilityTimeout;
        private Integer maxAttempts;
        private Backoff backoff;
        private Integer maxPayloadBytes;
        private Clock clock;
        private Integer replicas;
        private Duration replicaTimeout;
        private QueueListener listener;
        private Supplier<Map<String, String>> headers;

        private Builder(UnifiedJedis redis, WakeBus bus, String name, Class<T> type, TypeReference<T> typeReference) {
            this.redis = Require.notNull("redis", redis);
            this.bus = bus;
            Require.notNull("name", name);
            Names.requireValid(Names.Kind.QUEUE_NAME, name); // one rule for every name (docs/names.md)
            this.name = name;
            this.type = type;
            this.typeReference = typeReference;
        }

        /**
         * The Jackson mapper for payloads. Default: a plain {@code new ObjectMapper()}. A mapper with default
         * typing enabled is refused: a stored payload must never choose the class it is decoded into.
         *
         * @throws NullPointerException when {@code mapper} is null
         * @throws IllegalStateException when already set
         */
        public Builder<T> objectMapper(ObjectMapper mapper) {
            this.objectMapper = Require.setOnce("objectMapper", objectMapper, mapper);
            return this;
        }

        /**
         * How long a claimed job stays invisible before it is redelivered when not settled. Default 30 s.
         *
         * @throws NullPointerException when {@code timeout} is null
         * @throws IllegalArgumentException when {@code timeout} is shorter than 1 ms or over {@link #MAX_DELAY}
         * @throws IllegalStateException when already set
         */
        public Builder<T> visibilityTimeout(Duration timeout) {
            Require.setOnce("visibilityTimeout", visibilityTimeout, timeout);
            this.visibilityTimeout =
                    Require.within("visibilityTimeout", timeout, QueueConfig.MIN_VISIBILITY, MAX_DELAY);
            return this;
        }

        /**
         * Deliveries after which a failing (or timed-out) job goes to the dead letters. Default 10.
         *
         * @throws IllegalArgumentException when {@code attempts < 1}
         * @throws IllegalStateException when already set
         */
        public Builder<T> maxAttempts(int attempts) {
            Require.setOnce("maxAttempts", maxAttempts, attempts);
            this.maxAttempts = Require.atLeast("maxAttempts", attempts, 1);
            return this;
        }

        /**
         * The delay before a failed job's next delivery. Default: exponential from 1 s, doubling, at most
         * 10 min, jitter 0.2.
         *
         * @throws NullPointerException when {@code backoff} is null
         * @throws IllegalStateException when already set
         */
        public Builder<T> backoff(Backoff backoff) {
            this.backoff = Require.setOnce("backoff", this.backoff, backoff);
            return this;
        }

        /**
         * The largest encoded payload accepted, in bytes. Default 256 KiB, at most 64 MiB.
         *
         * @throws IllegalArgumentException when out of range
         * @throws IllegalStateException when already set
         */
        public Builder<T> maxPayloadBytes(int bytes) {
            Require.setOnce("maxPayloadBytes", maxPayloadBytes, bytes);
            this.maxPayloadBytes = Require.within("maxPayloadBytes", bytes, 1, QueueConfig.LIMIT_PAYLOAD_BYTES);
            return this;
        }

        /**
         * The client clock, used only for local estimates such as {@link Job#visibleUntil()}; due times and
         * deadlines always come from the Redis server clock. Default {@link Clock#systemUTC()}.
         *
         * @throws NullPointerException when {@code clock} is null
         * @throws IllegalStateException when already set
         */
        public Builder<T> clock(Clock clock) {
            this.clock = Require.setOnce("clock", this.clock, clock);
            return this;
        }

        /**
         * After every acknowledged enqueue (single and batch) and every ack (one {@code WAIT} per {@link
         * DelayQueue#ackAll(List)} call or worker ack batch), waits with {@code WAIT} until {@code replicas}
         * replicas have the write, sent on the same connection as the write (pipelined with the script). Off by
         * default. When fewer replicas acknowledge within {@code timeout}, the call throws a {@link
         * DelayQueueException} naming the count, but the write is <em>not</em> undone: the job is stored (or
         * acked) on the primary and only at risk should the primary fail over before its replicas catch up. An
         * enqueue may be retried with the same id, which is idempotent. This narrows, but does not close, the
         * window in which a failover loses an acknowledged write (see docs/guarantees.md); on Redis Cluster a
         * shard whose master has fewer than {@code replicas} live replicas fails every such call.
         *
         * @param replicas the replicas that must acknowledge, at least 1
         * @param timeout how long to wait for them, 1 ms to {@link #MAX_DELAY} (never forever)
         * @throws NullPointerException when {@code timeout} is null
         * @throws IllegalArgumentException when {@code replicas < 1} or {@code timeout} is out of range
         * @throws IllegalStateException when already set
         */
        public Builder<T> waitForReplicas(int replicas, Duration timeout) {
            Require.setOnce(
                    "waitForReplicas",
                    replicaTimeout == null
                            ? null
                            : this.replicas + " replicas within " + Durations.format(replicaTimeout),
                    "");
            Require.atLeast("replicas", replicas, 1);
            this.replicaTimeout = Require.within("timeout", timeout, QueueConfig.MIN_VISIBILITY, MAX_DELAY);
            this.replicas = replicas;
            return this;
        }

        /**
         * The listener told about this queue's jobs: enqueued here, claimed, handled, failed, dead-lettered,
         * claim lost and given back by its workers. A listener that throws is logged and ignored. Default: none.
         *
         * @throws NullPointerException when {@code listener} is null
         * @throws IllegalStateException when already set
         */
        public Builder<T> listener(QueueListener listener) {
            this.listener = Require.setOnce("listener", this.listener, listener);
            return this;
        }

        /**
         * Headers added to every job this queue enqueues ({@link Job#headers()}): {@code headers} is called on
         * the enqueuing thread at every {@code enqueue}, {@code schedule} and {@code enqueueAll} call (once per
         * call), so it can read that thread's context, e.g. to inject a W3C {@code traceparent}. A job's own
         * headers ({@link NewJob#withHeader}) win over these. It may return null or an empty map for none; the
         * result, with the job's own headers, must keep the limits of {@link NewJob} (at most {@link
         * #MAX_HEADERS} headers, keys 1 to {@link #MAX_HEADER_KEY_BYTES} UTF-8 bytes, at most {@link
         * #MAX_HEADERS_BYTES} UTF-8 bytes in all), else the enqueue throws {@link IllegalArgumentException}; an
         * exception it throws is thrown from the enqueue. Default: none.
         *
         * @throws NullPointerException when {@code headers} is null
         * @throws IllegalStateException when already set
         */
        public Builder<T> headers(Supplier<Map<String, String>> headers) {
            this.headers = Require.setOnce("headers", this.headers, headers);
            return this;
        }

        /**
         * Builds the queue. Nothing is written to Redis.
         *
         * @throws IllegalArgumentException when the object mapper has default typing enabled
         * @throws IllegalStateException when this builder came from a {@link RedisQueues} that was closed
         */
        public DelayQueue<T> build() {
            if (bus != null) {
                bus.requireOpen();
            }
            ObjectMapper mapper = Require.orDefault(objectMapper, new ObjectMapper());
            JavaType javaType = type != null
                    ? mapper.getTypeFactory().constructType(type)
                    : mapper.getTypeFactory().constructType(typeReference);
            QueueConfig config = new QueueConfig(
                    redis,
                    name,
                    javaType,
                    mapper,
                    Require.orDefault(visibilityTimeout, QueueConfig.DEFAULT_VISIBILITY),
                    Require.orDefault(maxAttempts, QueueConfig.DEFAULT_MAX_ATTEMPTS),
                    Require.orDefault(backoff, QueueConfig.DEFAULT_BACKOFF),
                    Require.orDefault(maxPayloadBytes, QueueConfig.DEFAULT_MAX_PAYLOAD_BYTES),
                    Require.orDefault(clock, Clock.systemUTC()),
                    replicas == null ? 0 : replicas,
                    replicaTimeout,
                    listener == null ? QueueListener.NONE : new SafeQueueListener(name, listener),
                    headers);
            return new DelayQueue<>(config, bus != null ? bus : WakeBus.own(redis, "deferlock-" + name + "-wake"));
        }
    }
}
