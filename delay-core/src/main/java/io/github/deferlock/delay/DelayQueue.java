package io.github.deferlock.delay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.github.deferlock.delay.internal.Envelope;
import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.delay.internal.QueueLua;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.ReplicatedCall;
import io.github.deferlock.redis.internal.Require;
import io.github.deferlock.redis.internal.Retry;
import io.github.deferlock.redis.internal.Script;
import io.github.deferlock.redis.internal.Topology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Every state change is one Lua script call on keys that share the hash tag {@code {name}} (see
 * docs/queue-keys.md), so a queue works the same on standalone Redis, Sentinel and Cluster. Payloads are
 * JSON written by Jackson for the bound type, with no default typing.
 *
 * <p>Redis failures are thrown as {@link DelayQueueException} with the Jedis exception as the cause; a
 * pooled connection that the server closed is retried transparently. With {@link Builder#waitForReplicas}, an
 * enqueue or ack that too few replicas acknowledged is also a {@link DelayQueueException}, although the write
 * was applied on the primary.
 *
 * <p>Instances are threadsafe and cheap; they hold no connection of their own.
 *
 * @param <T> the payload type
 */
public final class DelayQueue<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueue.class);

    private static final Script ENQUEUE = QueueLua.load("enqueue");
    private static final Script CLAIM = QueueLua.load("claim");
    private static final Script ACK = QueueLua.load("ack");
    private static final Script NACK = QueueLua.load("nack");
    private static final Script RESCHEDULE = QueueLua.load("reschedule");
    private static final Script EXTEND = QueueLua.load("extend");
    private static final Script CANCEL = QueueLua.load("cancel");
    private static final Script INFO = QueueLua.load("info");
    private static final Script HEAD = QueueLua.load("head");
    private static final Script DEAD_LIST = QueueLua.load("dead_list");
    private static final Script REQUEUE = QueueLua.load("requeue");
    private static final Script PURGE = QueueLua.load("purge");

    /** Jobs per enqueue script call in {@link #enqueueAll(List)}. */
    private static final int ENQUEUE_CHUNK = 200;
    /** Expired in-flight jobs returned per claim call. */
    private static final int RETURN_LIMIT = 100;
    /** Dead letters requeued or purged per script call. */
    private static final int BULK = 500;
    /** The largest claim. */
    static final int MAX_CLAIM = 1000;
    /** The most acks per script call ({@link #ackAll(List)}, or riding along with a claim). */
    static final int MAX_ACKS = 500;
    /** The most renewals per script call ({@link #extendAll(List)}). */
    static final int MAX_EXTENDS = 1000;
    /**
     * How long a write call's replay record lives: longer than any resend of the call (our retry and the
     * cluster client's), so a resent claim, ack, cancel or enqueue is recognised as the same call.
     */
    static final long REPLAY_TTL_MS = 60_000;

    private static final byte[] REPLAY_TTL = num(REPLAY_TTL_MS);
    private static final byte[] NO_REPLAY = {'0'};

    private static final int MAX_ERROR_CHARS = 4000;
    private static final SecureRandom IDS = new SecureRandom();
    private static final Base64.Encoder ID_ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final AtomicLong ID_COUNTER = new AtomicLong(IDS.nextInt() & 0xFFFF_FFFFL);
    private static volatile long idPrefix = IDS.nextLong();
    private static final byte[] DELAY = {'d'};
    private static final byte[] AT = {'a'};
    /** The earliest due time reported as requested: -2^53 ms, below which a Lua number is not exact. */
    private static final Instant EARLIEST_REPORTED = Instant.ofEpochMilli(-(1L << 53));

    /** The most dead letters one {@link #deadLetters(int)} call returns, so one call stays cheap for Redis. */
    public static final int MAX_DEAD_LIST = 1000;

    /**
     * The longest delay, due time ahead, visibility timeout or backoff step accepted: 366 days. Longer ones
     * are refused as a likely unit mistake (and would overflow the server's millisecond scores).
     */
    public static final Duration MAX_DELAY = Duration.ofDays(366);

    private volatile boolean enqueuePreloaded;
    private final UnifiedJedis redis;
    private final Topology topology;
    private final ReplicatedCall replicated;
    private final String name;
    private final QueueKeys keys;
    private final ObjectReader reader;
    private final ObjectWriter writer;
    private final Duration visibilityTimeout;
    private final int maxAttempts;
    private final Backoff backoff;
    private final int maxPayloadBytes;
    private final Clock clock;
    private final int replicas; // 0: no WAIT
    private final Duration replicaTimeout;
    private final QueueListener listener;

    private DelayQueue(Builder<T> b, JavaType type, ObjectMapper mapper) {
        this.redis = b.redis;
        this.name = b.name;
        this.keys = QueueKeys.of(b.name);
        this.reader = mapper.readerFor(type);
        this.writer = mapper.writerFor(type);
        this.visibilityTimeout = b.visibilityTimeout != null ? b.visibilityTimeout : Builder.DEFAULT_VISIBILITY;
        this.maxAttempts = b.maxAttempts > 0 ? b.maxAttempts : Builder.DEFAULT_MAX_ATTEMPTS;
        this.backoff = b.backoff != null ? b.backoff : Builder.DEFAULT_BACKOFF;
        this.maxPayloadBytes = b.maxPayloadBytes > 0 ? b.maxPayloadBytes : Builder.DEFAULT_MAX_PAYLOAD_BYTES;
        this.clock = b.clock != null ? b.clock : Clock.systemUTC();
        this.replicas = b.replicas;
        this.replicaTimeout = b.replicaTimeout;
        this.listener = b.listener == null ? QueueListener.NONE : new SafeQueueListener(b.name, b.listener);
        this.topology = Topology.of(b.redis);
        this.replicated = new ReplicatedCall(topology, b.replicas, b.replicas > 0 ? b.replicaTimeout : Duration.ZERO);
    }

    /**
     * The listener of this queue and its workers: the one given to the builder, wrapped so that a throwing
     * listener is logged and ignored, or {@link QueueListener#NONE}. For the worker's mechanisms.
     */
    QueueListener listener() {
        return listener;
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
        return new Builder<>(redis, name, Objects.requireNonNull(type, "type cannot be null"), null);
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
        return new Builder<>(redis, name, null, Objects.requireNonNull(type, "type cannot be null"));
    }

    /** The queue name. */
    public String name() {
        return name;
    }

    /** The visibility timeout given to each claim. */
    public Duration visibilityTimeout() {
        return visibilityTimeout;
    }

    /** Deliveries after which a failing job goes to the dead letters. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The backoff a {@link #nack(Job, String, Duration)} without a delay uses. */
    public Backoff backoff() {
        return backoff;
    }

    /** The largest encoded payload accepted, in bytes. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
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
        return enqueueOne(null, payload, Duration.ZERO, null);
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
        return enqueueOne(null, payload, requireDelay(delay), null);
    }

    /**
     * Enqueues a job with the caller's id, due after {@code delay}. Idempotent while the job exists: when a
     * job with this id is due, in flight or dead, nothing is written and the result says {@code
     * duplicate()}. Once the job is acked or cancelled the id may be used again.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when the id breaks the name rule (docs/names.md), {@code delay} is negative or
     *     over {@link #MAX_DELAY}, or the payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public EnqueueResult enqueue(String id, T payload, Duration delay) {
        return enqueueOne(requireId(id), payload, requireDelay(delay), null);
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
        return enqueueOne(null, payload, null, requireAt(at));
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
        return enqueueOne(requireId(id), payload, null, requireAt(at));
    }

    /**
     * Enqueues many payloads with generated ids, all due after {@code delay}; see {@link #enqueueAll(List)}.
     *
     * @throws NullPointerException when an argument or a payload is null
     * @throws IllegalArgumentException when {@code delay} is negative or a payload is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public List<EnqueueResult> enqueueAll(Collection<? extends T> payloads, Duration delay) {
        Objects.requireNonNull(payloads, "payloads cannot be null");
        requireDelay(delay);
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
     * ids (they are reported as duplicates).
     *
     * @throws NullPointerException when {@code jobs} or one of them is null
     * @throws IllegalArgumentException when a payload is over the limit, a caller id is too long, or a delay or
     *     due time is more than {@link #MAX_DELAY} ahead
     * @throws DelayQueueException when Redis fails
     */
    public List<EnqueueResult> enqueueAll(List<NewJob<T>> jobs) {
        Objects.requireNonNull(jobs, "jobs cannot be null");
        List<byte[]> args = new ArrayList<>(1 + 4 * jobs.size());
        List<String> ids = new ArrayList<>(jobs.size());
        boolean[] generated = new boolean[jobs.size()];
        Duration lastDelay = null;
        byte[] lastDelayArg = null;
        for (int i = 0; i < jobs.size(); i++) {
            NewJob<T> job = Objects.requireNonNull(jobs.get(i), "a job cannot be null");
            String id = job.id() != null ? requireId(job.id()) : newId();
            generated[i] = job.id() == null;
            ids.add(id);
            if (job.delay() != null) {
                if (!job.delay().equals(lastDelay)) { // a batch often shares one delay: format it once
                    lastDelayArg = num(toMillis(requireDelay(job.delay())));
                    lastDelay = job.delay();
                }
                args.add(utf8(id));
                args.add(DELAY);
                args.add(lastDelayArg);
                args.add(encode(job.payload()));
            } else {
                addJobArgs(args, id, encode(job.payload()), null, requireAt(job.at()));
            }
        }
        List<EnqueueResult> results = new ArrayList<>(jobs.size());
        if (jobs.isEmpty()) {
            return results;
        }
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        for (int from = 0; from < jobs.size(); from += ENQUEUE_CHUNK) {
            int to = Math.min(jobs.size(), from + ENQUEUE_CHUNK);
            boolean callerIds = false;
            for (int i = from; i < to && !callerIds; i++) {
                callerIds = !generated[i];
            }
            List<byte[]> chunk = new ArrayList<>(3 + 4 * (to - from));
            chunk.add(keys.channel());
            chunk.add(shardedFlag());
            chunk.add(callerIds ? REPLAY_TTL : NO_REPLAY); // generated ids recognise their own resend
            chunk.addAll(args.subList(4 * from, 4 * to));
            chunks.add(chunk);
            chunkKeys.add(QueueKeys.list(keys.due(), keys.jobs(), keys.seq(), keys.replay(newId())));
        }
        if (!enqueuePreloaded) {
            call("enqueueAll", () -> {
                ENQUEUE.preload(redis, keys.due()); // once: a later NOSCRIPT re-runs its chunk in pipeline()
                return null;
            });
            enqueuePreloaded = true;
        }
        List<Object> replies = call(
                "enqueueAll",
                () -> pipeline(
                        ENQUEUE,
                        chunkKeys,
                        chunks,
                        "enqueueAll",
                        "every job of the batch is stored on the primary",
                        true));
        for (int c = 0; c < replies.size(); c++) {
            List<?> reply = (List<?>) replies.get(c);
            int base = c * ENQUEUE_CHUNK;
            for (int k = 0; 1 + 2 * k < reply.size(); k++) {
                results.add(result(ids.get(base + k), generated[base + k], reply, k));
            }
        }
        return results;
    }

    /**
     * Runs {@code script} once per entry of {@code argLists}, with the keys of the same index in {@code keyLists},
     * in one pipeline (re-running by body the calls that met {@code NOSCRIPT}); with {@link
     * Builder#waitForReplicas} a {@code WAIT} follows on the same connection.
     */
    private List<Object> pipeline(
            Script script,
            List<List<byte[]>> keyLists,
            List<List<byte[]>> argLists,
            String op,
            String stored,
            boolean strict) {
        ReplicatedCall.Replies replies = replicated.runAll(script, keyLists, argLists);
        if (replies.acked() < replicas) {
            tooFewReplicas(op, replies.acked(), stored, strict);
        }
        return replies.replies();
    }

    /**
     * Runs {@code script}; with {@link Builder#waitForReplicas} it is pipelined with {@code WAIT} so that both
     * use the same connection, and too few acknowledging replicas is a {@link DelayQueueException} that says
     * {@code stored}.
     */
    private Object runAndWait(
            String op, Script script, List<byte[]> scriptKeys, List<byte[]> args, String stored, boolean strict) {
        if (replicas == 0) {
            return script.run(redis, scriptKeys, args);
        }
        ReplicatedCall.Replies replies = replicated.run(script, scriptKeys, args);
        if (replies.acked() < replicas) {
            tooFewReplicas(op, replies.acked(), stored, strict);
        }
        return replies.reply();
    }

    /** Throws (strict) or logs that too few replicas acknowledged a write that the primary applied. */
    private void tooFewReplicas(String op, long acked, String stored, boolean strict) {
        String message = op + " on queue '" + name + "' was acknowledged by " + acked + " of " + replicas
                + " replicas within " + replicaTimeout + "; " + stored + " and may be lost if it fails over now";
        if (strict) {
            throw new DelayQueueException(message);
        }
        LOG.warn(message);
    }

    private EnqueueResult enqueueOne(String id, T payload, Duration delay, Instant at) {
        byte[] encoded = encode(payload);
        boolean generated = id == null;
        String jobId = generated ? newId() : id;
        List<byte[]> args = new ArrayList<>(7);
        args.add(keys.channel());
        args.add(shardedFlag());
        args.add(generated ? NO_REPLAY : REPLAY_TTL); // a generated id recognises its own resend
        addJobArgs(args, jobId, encoded, delay, at);
        // one token for every try of this call: a resend after a lost reply replays the first reply
        List<byte[]> enqueueKeys = QueueKeys.list(keys.due(), keys.jobs(), keys.seq(), keys.replay(newId()));
        List<?> reply = (List<?>) call(
                "enqueue",
                () -> runAndWait(
                        "enqueue",
                        ENQUEUE,
                        enqueueKeys,
                        args,
                        "job '" + jobId + "' is stored on the primary (enqueueing it again with the same id is"
                                + " idempotent)",
                        true));
        return result(jobId, generated, reply, 0);
    }

    private static EnqueueResult result(String id, boolean generated, List<?> reply, int k) {
        boolean added = (Long) reply.get(1 + 2 * k) == 1L;
        Long due = (Long) reply.get(2 + 2 * k); // null: the existing job is in flight or dead
        // a generated id that exists was written by our own earlier try of the same call
        return new EnqueueResult(id, !added && !generated, due == null ? null : Instant.ofEpochMilli(due));
    }

    private void addJobArgs(List<byte[]> args, String id, byte[] payload, Duration delay, Instant at) {
        args.add(utf8(id));
        if (at != null) {
            args.add(AT);
            // sent as is: the script makes a time before 1970 due at once (score 0) and keeps it for dueAt()
            args.add(num(at.isBefore(EARLIEST_REPORTED) ? EARLIEST_REPORTED.toEpochMilli() : at.toEpochMilli()));
        } else {
            args.add(DELAY);
            args.add(num(toMillis(delay)));
        }
        args.add(payload);
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
        return claimBatch(max, acks, newToken());
    }

    /**
     * {@link #claimBatch(int, List)} as the call named {@code token}: a call with the token of an earlier one
     * that ran (within 60 s) is its resend, answered with that call's ack results and jobs still in flight under
     * its receipts (see docs/queue-keys.md), so a caller whose claim failed can resend it with the same
     * arguments and not strand the jobs it took.
     */
    ClaimBatch<T> claimBatch(int max, List<Job<T>> acks, String token) {
        if (max < 1 || max > MAX_CLAIM) {
            throw new IllegalArgumentException("max must be within [1, " + MAX_CLAIM + "], got " + max);
        }
        if (acks.size() > MAX_ACKS) {
            throw new IllegalArgumentException("at most " + MAX_ACKS + " acks ride along with a claim");
        }
        // one token for every try of this call: a resend after a lost reply gets the same jobs, not new ones
        List<byte[]> claimKeys = QueueKeys.list(
                keys.due(), keys.inflight(), keys.jobs(), keys.dead(), keys.errors(), keys.seq(), keys.replay(token));
        List<byte[]> args = new ArrayList<>(5 + 2 * acks.size());
        args.add(num(max));
        args.add(num(visibilityTimeout.toMillis()));
        args.add(num(maxAttempts));
        args.add(num(RETURN_LIMIT));
        args.add(REPLAY_TTL);
        addReceipts(args, acks);
        List<?> reply = (List<?>) call("claim", () -> CLAIM.run(redis, claimKeys, args));
        long nowMicros = (Long) reply.get(0);
        long wake = (Long) reply.get(1);
        List<Boolean> acked = results((List<?>) reply.get(2));
        Instant visibleUntil = clock.instant().plus(visibilityTimeout);
        List<Job<T>> jobs = new ArrayList<>((reply.size() - 3) / 3);
        for (int i = 3; i + 2 < reply.size(); i += 3) {
            Job<T> job =
                    decode((byte[]) reply.get(i), (byte[]) reply.get(i + 1), (byte[]) reply.get(i + 2), visibleUntil);
            if (job != null) {
                jobs.add(job);
            }
        }
        return new ClaimBatch<>(jobs, nowMicros, wake, acked);
    }

    /** One claimed job from the claim reply, or null when it cannot be read (then it was dealt with). */
    private Job<T> decode(byte[] rawId, byte[] rawEnvelope, byte[] rawError, Instant visibleUntil) {
        String id = new String(rawId, StandardCharsets.UTF_8);
        Envelope env;
        try {
            env = Envelope.parse(rawEnvelope);
        } catch (RuntimeException e) {
            // cannot happen with our own scripts; never let one bad entry strand the rest of the batch
            LOG.warn("queue '{}': job {} has an unreadable envelope and stays in flight: {}", name, id, e.toString());
            return null;
        }
        T payload;
        try {
            payload = reader.readValue(env.raw(), env.payloadOffset(), env.payloadLength());
        } catch (IOException | RuntimeException e) {
            deadLetterUndecodable(id, env, e);
            return null;
        }
        String error = text(rawError);
        return new Job<>(
                id,
                payload,
                env.attempts(),
                Instant.ofEpochMilli(env.dueMs()),
                env.receipt(),
                error.isEmpty() ? null : error,
                visibleUntil);
    }

    private void deadLetterUndecodable(String id, Envelope env, Exception e) {
        String reason = "undecodable payload: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        LOG.warn("queue '{}': job {} moved to the dead letters, {}", name, id, reason);
        try {
            settle("deadLetter", id, env.receipt(), reason, 0, 0);
        } catch (RuntimeException settleFailure) {
            LOG.warn(
                    "queue '{}': dead-lettering job {} failed, it will be redelivered: {}",
                    name,
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
        Objects.requireNonNull(job, "job cannot be null");
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
        requireReceipt(receipt);
        List<byte[]> ackKeys = QueueKeys.list(keys.jobs(), keys.inflight(), keys.errors(), keys.replay(newId()));
        List<byte[]> args = List.of(REPLAY_TTL, utf8(id), utf8(receipt));
        List<?> r = (List<?>) call(
                "ack",
                () -> runAndWait(
                        "ack", ACK, ackKeys, args, "job '" + id + "' is acked (deleted) on the primary", true));
        return (Long) r.get(0) == 1L;
    }

    private static String requireReceipt(String receipt) {
        Objects.requireNonNull(receipt, "receipt cannot be null");
        if (receipt.isEmpty()) {
            throw new IllegalArgumentException("receipt cannot be empty");
        }
        return receipt;
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
        Objects.requireNonNull(jobs, "jobs cannot be null");
        for (Job<T> job : jobs) {
            Objects.requireNonNull(job, "a job cannot be null");
        }
        List<Boolean> out = new ArrayList<>(jobs.size());
        if (jobs.isEmpty()) {
            return out;
        }
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        for (int from = 0; from < jobs.size(); from += MAX_ACKS) {
            List<byte[]> chunk = new ArrayList<>();
            chunk.add(REPLAY_TTL);
            addReceipts(chunk, jobs.subList(from, Math.min(jobs.size(), from + MAX_ACKS)));
            chunks.add(chunk);
            chunkKeys.add(QueueKeys.list(keys.jobs(), keys.inflight(), keys.errors(), keys.replay(newId())));
        }
        String stored = jobs.size() + " jobs are acked (deleted) on the primary";
        List<Object> replies = chunks.size() == 1
                ? List.of(call(
                        "ackAll", () -> runAndWait("ackAll", ACK, chunkKeys.get(0), chunks.get(0), stored, strict)))
                : call("ackAll", () -> pipeline(ACK, chunkKeys, chunks, "ackAll", stored, strict));
        for (Object reply : replies) {
            out.addAll(results((List<?>) reply));
        }
        for (Job<T> job : jobs) {
            job.markSettled();
        }
        return out;
    }

    /** True when writes are followed by {@code WAIT} ({@link Builder#waitForReplicas}). */
    boolean waitsForReplicas() {
        return replicas > 0;
    }

    private static void addReceipts(List<byte[]> args, List<? extends Job<?>> jobs) {
        for (Job<?> job : jobs) {
            args.add(utf8(job.id()));
            args.add(utf8(job.receipt()));
        }
    }

    private static List<Boolean> results(List<?> flags) {
        List<Boolean> out = new ArrayList<>(flags.size());
        for (Object f : flags) {
            out.add((Long) f == 1L);
        }
        return out;
    }

    /**
     * Reports a failed delivery: the job is due again after {@code retryDelay} (or, when null, after {@link
     * #backoff()} for its attempt number), or goes to the dead letters with {@code error} when it has had
     * {@link #maxAttempts()} deliveries.
     *
     * @param error the failure, stored as the job's last error (null: "no error message"; cut to 4000 chars)
     * @param retryDelay the delay before the next delivery, or null for the backoff
     * @return true when settled; false when the receipt is stale
     * @throws NullPointerException when {@code job} is null
     * @throws IllegalArgumentException when {@code retryDelay} is negative or over {@link #MAX_DELAY}
     * @throws DelayQueueException when Redis fails
     */
    public boolean nack(Job<T> job, String error, Duration retryDelay) {
        Objects.requireNonNull(job, "job cannot be null");
        Duration delay = retryDelay != null
                ? requireDelay(retryDelay, "retryDelay")
                : backoff.delay(Math.max(1, job.attempts()));
        long r = settle("nack", job.id(), job.receipt(), error, toMillis(delay), maxAttempts);
        job.markSettled();
        return r != 0;
    }

    /**
     * Moves a claimed job to the dead letters at once, with {@code reason} as its last error.
     *
     * @return true when moved; false when the receipt is stale
     * @throws NullPointerException when {@code job} or {@code reason} is null
     * @throws DelayQueueException when Redis fails
     */
    public boolean deadLetter(Job<T> job, String reason) {
        Objects.requireNonNull(job, "job cannot be null");
        Objects.requireNonNull(reason, "reason cannot be null");
        long r = settle("deadLetter", job.id(), job.receipt(), reason, 0, 0);
        job.markSettled();
        return r != 0;
    }

    private long settle(String op, String id, String receipt, String error, long delayMs, int attemptsLimit) {
        List<byte[]> nackKeys = QueueKeys.list(keys.jobs(), keys.inflight(), keys.due(), keys.dead(), keys.errors());
        String e = error == null || error.isEmpty() ? "no error message" : error;
        if (e.length() > MAX_ERROR_CHARS) {
            e = e.substring(0, MAX_ERROR_CHARS);
        }
        List<byte[]> args = List.of(
                utf8(id), utf8(receipt), utf8(e), num(delayMs), num(attemptsLimit), keys.channel(), shardedFlag());
        return (Long) call(op, () -> NACK.run(redis, nackKeys, args));
    }

    /**
     * Returns a claimed job to due at now + {@code delay} without counting this delivery as an attempt —
     * a deferral, not a failure — optionally with a new payload. The last error is kept.
     *
     * @param replacementPayload the payload to store instead, or null to keep the current one
     * @return true when rescheduled; false when the receipt is stale
     * @throws NullPointerException when {@code job} or {@code delay} is null
     * @throws IllegalArgumentException when {@code delay} is negative or over {@link #MAX_DELAY}, or the
     *     replacement is over the limit
     * @throws DelayQueueException when Redis fails
     */
    public boolean reschedule(Job<T> job, Duration delay, T replacementPayload) {
        Objects.requireNonNull(job, "job cannot be null");
        requireDelay(delay);
        byte[] replacement = replacementPayload == null ? new byte[0] : encode(replacementPayload);
        List<byte[]> rKeys = QueueKeys.list(keys.jobs(), keys.inflight(), keys.due());
        List<byte[]> args = List.of(
                utf8(job.id()),
                utf8(job.receipt()),
                num(toMillis(delay)),
                keys.channel(),
                num(replacementPayload == null ? 0 : 1),
                replacement,
                shardedFlag());
        long r = (Long) call("reschedule", () -> RESCHEDULE.run(redis, rKeys, args));
        job.markSettled();
        return r == 1L;
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
        Objects.requireNonNull(job, "job cannot be null");
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
        requireReceipt(receipt);
        Objects.requireNonNull(visibility, "visibility cannot be null");
        if (visibility.isNegative() || visibility.isZero() || visibility.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "visibility must be positive and at most " + MAX_DELAY.toDays() + " days, got " + visibility);
        }
        List<byte[]> eKeys = QueueKeys.list(keys.jobs(), keys.inflight());
        List<byte[]> args = List.of(num(toMillis(visibility)), utf8(id), utf8(receipt));
        List<?> r = (List<?>) call("extend", () -> EXTEND.run(redis, eKeys, args));
        return (Long) r.get(0) > 0;
    }

    /**
     * Moves the visibility deadline of every given claimed job to now + {@link #visibilityTimeout()}: one script
     * call per {@link #MAX_EXTENDS} jobs (pipelined). A worker's renewal tick.
     *
     * @return one result per job, in order: false when its receipt is stale
     */
    List<Boolean> extendAll(List<Job<T>> jobs) {
        List<List<byte[]>> chunkKeys = new ArrayList<>();
        List<List<byte[]>> chunks = new ArrayList<>();
        List<byte[]> eKeys = QueueKeys.list(keys.jobs(), keys.inflight());
        for (int from = 0; from < jobs.size(); from += MAX_EXTENDS) {
            List<byte[]> chunk = new ArrayList<>();
            chunk.add(num(toMillis(visibilityTimeout)));
            addReceipts(chunk, jobs.subList(from, Math.min(jobs.size(), from + MAX_EXTENDS)));
            chunks.add(chunk);
            chunkKeys.add(eKeys);
        }
        List<Object> replies = chunks.size() == 1
                ? List.of(call("extend", () -> EXTEND.run(redis, eKeys, chunks.get(0))))
                : call("extend", () -> runEach(EXTEND, chunkKeys, chunks));
        List<Boolean> out = new ArrayList<>(jobs.size());
        for (Object reply : replies) {
            for (Object deadline : (List<?>) reply) {
                out.add((Long) deadline > 0);
            }
        }
        return out;
    }

    /** Runs {@code script} once per entry of {@code argLists}, one call after another. */
    private List<Object> runEach(Script script, List<List<byte[]>> keyLists, List<List<byte[]>> argLists) {
        List<Object> out = new ArrayList<>(argLists.size());
        for (int c = 0; c < argLists.size(); c++) { // rare (over 1000 running jobs): one call after another
            out.add(script.run(redis, keyLists.get(c), argLists.get(c)));
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
        requireId(id);
        // one token for every try of this call: a resend after a lost reply is told what the first try did
        List<byte[]> cKeys = QueueKeys.list(
                keys.jobs(), keys.due(), keys.inflight(), keys.dead(), keys.errors(), keys.replay(newId()));
        return (Long) call("cancel", () -> CANCEL.run(redis, cKeys, List.of(utf8(id), REPLAY_TTL))) == 1L;
    }

    /**
     * A snapshot of one job.
     *
     * @return the job, or empty when there is no job with this id (never enqueued, acked or cancelled)
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public Optional<JobInfo> get(String id) {
        requireId(id);
        List<byte[]> iKeys = QueueKeys.list(keys.jobs(), keys.due(), keys.inflight(), keys.dead(), keys.errors());
        List<?> reply = (List<?>) call("get", () -> INFO.run(redis, iKeys, List.of(utf8(id))));
        if (reply.isEmpty()) {
            return Optional.empty();
        }
        Envelope env = Envelope.parse((byte[]) reply.get(0));
        String error = text((byte[]) reply.get(1));
        long score = (Long) reply.get(2);
        Optional<Instant> at = score < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(score));
        Optional<String> lastError = error.isEmpty() ? Optional.empty() : Optional.of(error);
        return Optional.of(
                switch (env.state()) {
                    case 'f' ->
                        new JobInfo(
                                id,
                                JobState.IN_FLIGHT,
                                env.attempts(),
                                Optional.of(Instant.ofEpochMilli(env.dueMs())),
                                at,
                                Optional.empty(),
                                lastError);
                    case 'x' ->
                        new JobInfo(
                                id, JobState.DEAD, env.attempts(), Optional.empty(), Optional.empty(), at, lastError);
                    default -> // a job scheduled before 1970 waits with score 0 and keeps its requested time
                        new JobInfo(
                                id,
                                JobState.DUE,
                                env.attempts(),
                                env.dueMs() == Envelope.NO_DUE ? at : Optional.of(Instant.ofEpochMilli(env.dueMs())),
                                Optional.empty(),
                                Optional.empty(),
                                lastError);
                });
    }

    /**
     * How many jobs are in {@code state}; {@link JobState#DUE} counts jobs scheduled for later as well.
     *
     * @throws NullPointerException when {@code state} is null
     * @throws DelayQueueException when Redis fails
     */
    public long size(JobState state) {
        Objects.requireNonNull(state, "state cannot be null");
        byte[] key =
                switch (state) {
                    case DUE -> keys.due();
                    case IN_FLIGHT -> keys.inflight();
                    case DEAD -> keys.dead();
                };
        return call("size", () -> redis.zcard(key));
    }

    /**
     * How long the earliest due job has been due (server clock); zero when no job is due yet. A growing value
     * means workers fall behind.
     *
     * @throws DelayQueueException when Redis fails
     */
    public Duration oldestDueAge() {
        List<?> reply = (List<?>) call("oldestDueAge", () -> HEAD.run(redis, List.of(keys.due()), List.of()));
        long nowMicros = (Long) reply.get(0);
        long head = (Long) reply.get(1);
        if (head < 0 || head * 1000 >= nowMicros) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((nowMicros - head * 1000) * 1000);
    }

    /**
     * The oldest dead letters, oldest first.
     *
     * @param limit how many at most, at least 1
     * @throws IllegalArgumentException when {@code limit < 1}
     * @throws DelayQueueException when Redis fails
     */
    public List<DeadLetter> deadLetters(int limit) {
        if (limit < 1 || limit > MAX_DEAD_LIST) {
            throw new IllegalArgumentException(
                    "limit must be within [1, " + MAX_DEAD_LIST + "] (page through larger sets), got " + limit);
        }
        List<byte[]> dKeys = QueueKeys.list(keys.dead(), keys.jobs(), keys.errors());
        List<?> reply = (List<?>) call("deadLetters", () -> DEAD_LIST.run(redis, dKeys, List.of(num(limit))));
        List<DeadLetter> out = new ArrayList<>(reply.size() / 4);
        for (int i = 0; i + 3 < reply.size(); i += 4) {
            Envelope env = Envelope.parse((byte[]) reply.get(i + 1));
            out.add(new DeadLetter(
                    new String((byte[]) reply.get(i), StandardCharsets.UTF_8),
                    env.attempts(),
                    Instant.ofEpochMilli((Long) reply.get(i + 3)),
                    text((byte[]) reply.get(i + 2)),
                    env.payloadText()));
        }
        return out;
    }

    /**
     * Moves one dead letter back to due now, with its attempts reset to 0.
     *
     * @return true when moved; false when there is no dead job with this id
     * @throws NullPointerException when {@code id} is null
     * @throws IllegalArgumentException when the id is empty, over 512 bytes or not valid Unicode (docs/names.md)
     * @throws DelayQueueException when Redis fails
     */
    public boolean requeueDead(String id) {
        requireId(id);
        return requeue(utf8("id"), utf8(id)) == 1L;
    }

    /**
     * Moves every dead letter back to due now (in script calls of 500), with attempts reset to 0.
     *
     * @return how many were moved
     * @throws DelayQueueException when Redis fails
     */
    public long requeueAllDead() {
        return bulk(() -> requeue(utf8("oldest"), num(BULK)));
    }

    private long requeue(byte[] mode, byte[] arg) {
        List<byte[]> rKeys = QueueKeys.list(keys.dead(), keys.due(), keys.jobs());
        return (Long)
                call("requeueDead", () -> REQUEUE.run(redis, rKeys, List.of(keys.channel(), mode, arg, shardedFlag())));
    }

    /**
     * Deletes every dead letter (in script calls of 500).
     *
     * @return how many were deleted
     * @throws DelayQueueException when Redis fails
     */
    public long purgeDead() {
        List<byte[]> pKeys = QueueKeys.list(keys.dead(), keys.jobs(), keys.errors());
        return bulk(() -> (Long) call("purgeDead", () -> PURGE.run(redis, pKeys, List.of(num(BULK)))));
    }

    private long bulk(Supplier<Long> step) {
        long limit = size(JobState.DEAD) + BULK; // jobs dying meanwhile do not keep us here forever
        long total = 0;
        long n;
        do {
            n = step.get();
            total += n;
        } while (n == BULK && total < limit);
        return total;
    }

    // ---------------------------------------------------------------- plumbing

    UnifiedJedis redis() {
        return redis;
    }

    byte[] wakeChannel() {
        return keys.channel();
    }

    /** The scripts' publish flag: {@code 1} for SPUBLISH on a Redis 7.0+ cluster, else {@code 0}. */
    private byte[] shardedFlag() {
        return topology.publishFlag();
    }

    /**
     * The server's {@code maxmemory-policy}, read from {@code INFO memory} or, when INFO is not permitted
     * (ACL {@code -@dangerous}), from {@code CONFIG GET}; empty when neither is allowed or Redis fails. On
     * Cluster the client sends them to one node only.
     */
    Optional<String> evictionPolicy() {
        try {
            String info = Retry.CONNECTION_ERRORS.call(() -> redis.info("memory"));
            for (String line : info.split("\\r?\\n")) {
                if (line.startsWith("maxmemory_policy:")) {
                    return Optional.of(
                            line.substring("maxmemory_policy:".length()).trim());
                }
            }
        } catch (RuntimeException e) { // NOPERM, or a client type that cannot send INFO
            LOG.debug("queue '{}': INFO memory failed, trying CONFIG GET: {}", name, e.toString());
        }
        try {
            java.util.Map<String, String> config =
                    Retry.CONNECTION_ERRORS.call(() -> redis.configGet("maxmemory-policy"));
            String policy = config.get("maxmemory-policy");
            if (policy != null) {
                return Optional.of(policy);
            }
        } catch (RuntimeException e) {
            LOG.debug("queue '{}': CONFIG GET maxmemory-policy failed: {}", name, e.toString());
        }
        return Optional.empty();
    }

    private <R> R call(String op, Supplier<R> body) {
        try {
            return Retry.CONNECTION_ERRORS.call(body);
        } catch (JedisException e) {
            throw new DelayQueueException(op + " failed on queue '" + name + "': " + e.getMessage(), e);
        }
    }

    private byte[] encode(T payload) {
        Objects.requireNonNull(payload, "payload cannot be null");
        byte[] bytes;
        try {
            bytes = writer.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot encode the payload for queue '" + name + "': " + e.getOriginalMessage(), e);
        }
        if (bytes.length > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of " + bytes.length + " bytes is over the limit of "
                    + maxPayloadBytes + " bytes (maxPayloadBytes) for queue '" + name + "'");
        }
        return bytes;
    }

    /**
     * 96 bits: a random 64-bit prefix chosen per process (renewed every 2^32 ids) and a counter, so ids are
     * unique without a {@link SecureRandom} call per job.
     */
    private static String newId() {
        long n = ID_COUNTER.getAndIncrement();
        long prefix = idPrefix;
        if ((n & 0xFFFF_FFFFL) == 0xFFFF_FFFFL) {
            idPrefix = IDS.nextLong();
        }
        byte[] b = new byte[12];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (prefix >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            b[8 + i] = (byte) (n >>> (24 - 8 * i));
        }
        return ID_ENCODER.encodeToString(b);
    }

    /** A fresh name for one write call (its replay record), unique like a generated id. */
    static String newToken() {
        return newId();
    }

    private static String requireId(String id) {
        Objects.requireNonNull(id, "id cannot be null");
        Names.requireValid(Names.Kind.JOB_ID, id); // one rule for every name (docs/names.md)
        return id;
    }

    private static Duration requireDelay(Duration delay) {
        return requireDelay(delay, "delay");
    }

    private static Duration requireDelay(Duration delay, String what) {
        Objects.requireNonNull(delay, what + " cannot be null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException(what + " cannot be negative, got " + delay);
        }
        if (delay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(
                    what + " must be at most " + MAX_DELAY.toDays() + " days (MAX_DELAY), got " + delay);
        }
        return delay;
    }

    private Instant requireAt(Instant at) {
        Objects.requireNonNull(at, "at cannot be null");
        Instant now = clock.instant();
        if (at.isAfter(now) && Duration.between(now, at).compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(
                    "at must be at most " + MAX_DELAY.toDays() + " days (MAX_DELAY) ahead, got " + at);
        }
        return at;
    }

    private static long toMillis(Duration d) {
        long ms = d.toMillis();
        return d.minusMillis(ms).isZero() ? ms : ms + 1; // round up: never due early
    }

    private static String text(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] num(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "DelayQueue[" + name + "]";
    }

    /**
     * Builds a {@link DelayQueue}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the earlier value. Not threadsafe.
     *
     * @param <T> the payload type
     */
    public static final class Builder<T> {
        static final Duration DEFAULT_VISIBILITY = Duration.ofSeconds(30);
        static final int DEFAULT_MAX_ATTEMPTS = 10;
        static final Backoff DEFAULT_BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(10), 2.0)
                .withJitter(0.2);
        static final int DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;
        private static final int LIMIT_PAYLOAD_BYTES = 64 * 1024 * 1024;

        private final UnifiedJedis redis;
        private final String name;
        private final Class<T> type;
        private final TypeReference<T> typeReference;
        private ObjectMapper objectMapper;
        private Duration visibilityTimeout;
        private int maxAttempts;
        private Backoff backoff;
        private int maxPayloadBytes;
        private Clock clock;
        private int replicas;
        private Duration replicaTimeout;
        private QueueListener listener;

        private Builder(UnifiedJedis redis, String name, Class<T> type, TypeReference<T> typeReference) {
            this.redis = Objects.requireNonNull(redis, "redis cannot be null");
            Objects.requireNonNull(name, "name cannot be null");
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
            once(objectMapper, "objectMapper");
            this.objectMapper = Objects.requireNonNull(mapper, "objectMapper cannot be null");
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
            once(visibilityTimeout, "visibilityTimeout");
            Objects.requireNonNull(timeout, "visibilityTimeout cannot be null");
            if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(MAX_DELAY) > 0) {
                throw new IllegalArgumentException(
                        "visibilityTimeout must be within [1 ms, " + MAX_DELAY.toDays() + " days], got " + timeout);
            }
            this.visibilityTimeout = timeout;
            return this;
        }

        /**
         * Deliveries after which a failing (or timed-out) job goes to the dead letters. Default 10.
         *
         * @throws IllegalArgumentException when {@code attempts < 1}
         * @throws IllegalStateException when already set
         */
        public Builder<T> maxAttempts(int attempts) {
            once(maxAttempts == 0 ? null : maxAttempts, "maxAttempts");
            if (attempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1, got " + attempts);
            }
            this.maxAttempts = attempts;
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
            once(this.backoff, "backoff");
            this.backoff = Objects.requireNonNull(backoff, "backoff cannot be null");
            return this;
        }

        /**
         * The largest encoded payload accepted, in bytes. Default 256 KiB, at most 64 MiB.
         *
         * @throws IllegalArgumentException when out of range
         * @throws IllegalStateException when already set
         */
        public Builder<T> maxPayloadBytes(int bytes) {
            once(maxPayloadBytes == 0 ? null : maxPayloadBytes, "maxPayloadBytes");
            if (bytes < 1 || bytes > LIMIT_PAYLOAD_BYTES) {
                throw new IllegalArgumentException(
                        "maxPayloadBytes must be within [1, " + LIMIT_PAYLOAD_BYTES + "], got " + bytes);
            }
            this.maxPayloadBytes = bytes;
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
            once(this.clock, "clock");
            this.clock = Objects.requireNonNull(clock, "clock cannot be null");
            return this;
        }

        /**
         * After every acknowledged enqueue (single and batch) and every ack (one {@code WAIT} per {@link
         * DelayQueue#ackAll(List)} call or worker ack batch), waits with {@code WAIT} until {@code replicas} replicas have
         * the write, sent on the same connection as the write (pipelined with the script). Off by default. When fewer replicas acknowledge within {@code timeout}, the call throws a
         * {@link DelayQueueException} naming the count, but the write is <em>not</em> undone: the job is stored
         * (or acked) on the primary and only at risk should the primary fail over before its replicas catch
         * up. An enqueue may be retried with the same id, which is idempotent. This narrows, but does not
         * close, the window in which a failover loses an acknowledged write (see docs/guarantees.md); on
         * Redis Cluster a shard whose master has fewer than {@code replicas} live replicas fails every such
         * call.
         *
         * @param replicas the replicas that must acknowledge, at least 1
         * @param timeout how long to wait for them, at least 1 ms (never forever)
         * @throws NullPointerException when {@code timeout} is null
         * @throws IllegalArgumentException when {@code replicas < 1} or {@code timeout} is under 1 ms
         * @throws IllegalStateException when already set
         */
        public Builder<T> waitForReplicas(int replicas, Duration timeout) {
            once(
                    replicaTimeout == null ? null : this.replicas + " replicas within " + replicaTimeout,
                    "waitForReplicas");
            Objects.requireNonNull(timeout, "timeout cannot be null");
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas must be >= 1, got " + replicas);
            }
            if (timeout.toMillis() < 1) {
                throw new IllegalArgumentException("timeout must be at least 1 ms, got " + timeout);
            }
            this.replicas = replicas;
            this.replicaTimeout = timeout;
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
         * Builds the queue. Nothing is written to Redis.
         *
         * @throws IllegalArgumentException when the object mapper has default typing enabled
         */
        public DelayQueue<T> build() {
            ObjectMapper mapper = objectMapper != null ? objectMapper : new ObjectMapper();
            JavaType javaType = type != null
                    ? mapper.getTypeFactory().constructType(type)
                    : mapper.getTypeFactory().constructType(typeReference);
            if (mapper.getDeserializationConfig().getDefaultTyper(javaType) != null
                    || mapper.getSerializationConfig().getDefaultTyper(javaType) != null) {
                throw new IllegalArgumentException("the objectMapper for queue '" + name
                        + "' has default typing enabled; payloads must not name their own classes");
            }
            return new DelayQueue<>(this, javaType, mapper);
        }

        private static void once(Object current, String setting) {
            if (current != null) {
                throw new IllegalStateException(setting + " was already set to " + current);
            }
        }
    }
}
