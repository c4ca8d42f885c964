package io.github.deferlock.streams;

import com.fasterxml.jackson.core.type.TypeReference;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.consumer.AbstractConsumer;
import io.github.deferlock.consumer.ConsumerBuilder;
import io.github.deferlock.consumer.internal.ConsumerCore;
import io.github.deferlock.consumer.internal.DeliveryRunner;
import io.github.deferlock.consumer.internal.HandlerLanes;
import io.github.deferlock.consumer.internal.PayloadReader;
import io.github.deferlock.redis.internal.Require;
import io.github.deferlock.streams.internal.StreamGroup;
import io.github.deferlock.streams.internal.StreamGroup.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.StreamEntry;

/**
 * A Redis Streams consumer-group member that hands every entry to a {@link ConflictAwareHandler} and
 * acknowledges it ({@code XACK}) only once {@code handle} returned: the message was processed, skipped as a
 * duplicate, or — with {@code OnConflict.DEFER} — its deferral is stored in Redis. A hot key therefore never
 * blocks a consumer thread, and a process that dies at any point leaves the entry pending, so it is delivered
 * again.
 *
 * <pre>{@code
 * StreamConsumer<OrderEvent> consumer = StreamConsumer.builder(redis, "order-events", "billing",
 *                 OrderEvent.class, orders)          // orders: a ConflictAwareHandler<OrderEvent>
 *         .concurrency(8)
 *         .build()
 *         .start();
 * // ... on shutdown:
 * consumer.close();   // stop reading, finish running entries, ack them; the rest is redelivered
 * }</pre>
 *
 * <p><b>How it reads.</b> One reader thread fills N handler threads (platform or virtual) with {@code XREADGROUP …
 * COUNT n BLOCK b}. Per key (the handler's lock key, or {@link ConsumerBuilder#orderKey orderKey}) it reads up to 4
 * entries per thread ahead and queues each on the lane of its key: a key's entries run one at a time in stream
 * order (a retry waits in place), different keys in parallel ({@link ConsumerBuilder#anyOrder anyOrder()}: only as
 * many as there are free threads, any order). The group splits a key's entries between its consumers, and entries
 * reclaimed from a dead consumer run after newer ones. At start, and after a failed read (a lost reply), it first
 * reads its own pending entries (those left under the same {@link Builder#consumerName(String) name}). Every {@code
 * claimInterval} it takes over entries pending longer than {@code claimIdle} in any consumer of the group with
 * {@code XAUTOCLAIM}: those of dead consumers. {@code claimIdle} must therefore exceed the longest handler run
 * (retries and Redis waits included), or a running entry is handed out twice (the lock and the done marker then
 * make the second copy wait or return {@code DUPLICATE}).
 *
 * <p><b>Encoding.</b> An entry holds the message as JSON in the field {@value #PAYLOAD_FIELD} ({@link
 * StreamProducer} writes that shape). Without it, or with JSON that does not decode, it is a poison entry: it goes
 * to the dead-letter stream with the reason and is acknowledged.
 *
 * <p><b>Failures.</b> When a lock or deferral call cannot reach Redis (unreachable, {@code LOADING}, a failover),
 * the entry stays pending on its handler thread and is tried again once Redis answers; the other handler threads
 * pause meanwhile. That never costs an attempt and never dead-letters it. When the handler itself throws (or the
 * lock was lost, or a THROW/SLEEP_RETRY conflict) the entry uses an attempt and runs again on its thread after
 * {@code retryBackoff}, still pending. An entry delivered more often ({@code XPENDING}'s count, which crash loops
 * and claims during a Redis outage raise too) runs as its last attempt: only a handler failure dead-letters it. A
 * failure on attempt {@code maxAttempts} moves it to the dead-letter stream
 * (default {@code <stream>:dead}; fields {@value #PAYLOAD_FIELD}, {@value #ENTRY_FIELD}, {@value #REASON_FIELD},
 * {@value #DELIVERIES_FIELD}) and acknowledges it. The copy to the dead-letter stream and the ack are two
 * commands: a crash between them can dead-letter an entry twice, never lose it.
 *
 * <p><b>Consumers in the group.</b> {@link #close()} deletes this consumer from the group ({@code XGROUP
 * DELCONSUMER}) when it has no pending entries, so restarts with fresh names do not pile up consumers; one with
 * pending entries stays until they are reclaimed. Every {@code claimInterval} the reader also deletes consumers
 * idle longer than {@link Builder#deleteIdleConsumersAfter(Duration) deleteIdleConsumersAfter} (default 1 h) that
 * have no pending entries — those left by processes that were killed. Both checks and deletes are one atomic
 * script, so a consumer that still holds an entry is never deleted.
 *
 * <p><b>Redis restarts.</b> Every Redis call of the reader is retried with a backoff (100 ms doubling to 2 s),
 * so a consumer rides out a restart or failover without being rebuilt; a group that vanished (a restart without
 * persistence) is created again from the start of the stream.
 *
 * <p>Exactly-once handling across redeliveries needs a {@code messageId} function on the handler: the done
 * marker it writes under the lock turns a redelivered copy into {@code DUPLICATE}. Without one a redelivered
 * entry can run twice.
 *
 * <p>Threadsafe; the builder is not.
 *
 * @param <M> the message type
 */
public final class StreamConsumer<M> extends AbstractConsumer<StreamConsumer<M>> {

    private static final Logger LOG = LoggerFactory.getLogger(StreamConsumer.class);

    /** The entry field that holds the message as JSON. */
    public static final String PAYLOAD_FIELD = "payload";
    /** Dead-letter field: the id of the entry in its source stream. */
    public static final String ENTRY_FIELD = "entry";
    /** Dead-letter field: why the entry was dead-lettered. */
    public static final String REASON_FIELD = "reason";
    /** Dead-letter field: how many times the entry was delivered. */
    public static final String DELIVERIES_FIELD = "deliveries";

    private static final String[] DEAD_FIELDS = {PAYLOAD_FIELD, ENTRY_FIELD, REASON_FIELD, DELIVERIES_FIELD};

    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 2_000;
    private static final AtomicInteger SERIAL = new AtomicInteger();
    private static final int READ_AHEAD = 4; // with an orderKey: entries per handler thread that wait or run

    private final ConsumerCore<M, StreamListener> core;
    private final UnifiedJedis redis;
    private final String stream;
    private final String group;
    private final String consumer;
    private final int batchSize;
    private final int blockMillis;
    private final long claimIdleMillis;
    private final long claimIntervalNanos;
    private final long deleteIdleMillis;
    private final String deadLetterStream;
    private final String threadName;
    private HandlerLanes<Work<M>> handlers;
    private final Thread reader0;
    private final Semaphore free;
    private final StreamGroup calls;

    private StreamConsumer(Builder<M> b) {
        super("consumer of stream '" + b.stream + "' in group '" + b.group + "'");
        this.redis = b.redis;
        this.stream = b.stream;
        this.group = b.group;
        this.core = ConsumerCore.of(b.settings(), "stream '" + stream + "'");
        this.consumer = b.consumerName != null
                ? b.consumerName
                : "consumer-" + ProcessHandle.current().pid() + "-"
                        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000));
        int concurrency = core.settings().concurrency();
        this.batchSize = Require.orDefault(b.batchSize, Math.min(100, Math.max(10, concurrency)));
        this.blockMillis =
                (int) Require.orDefault(b.block, Duration.ofMillis(500)).toMillis();
        this.claimIdleMillis =
                Require.orDefault(b.claimIdle, Duration.ofSeconds(60)).toMillis();
        this.claimIntervalNanos = b.claimInterval == null
                ? TimeUnit.MILLISECONDS.toNanos(claimIdleMillis / 2)
                : b.claimInterval.toNanos();
        Duration idle = Require.orDefault(b.deleteIdle, Duration.ofHours(1));
        this.deleteIdleMillis = idle.isZero() ? -1 : idle.toMillis();
        this.deadLetterStream = Require.orDefault(b.deadLetterStream, stream + ":dead");
        this.free = new Semaphore(core.settings().orderKey() == null ? concurrency : READ_AHEAD * concurrency);
        this.calls = new StreamGroup(redis, stream, group, consumer);
        this.threadName = "deferlock-stream-" + stream + "-" + SERIAL.incrementAndGet();
        this.reader0 = new Thread(this::readLoop, threadName + "-reader");
        this.reader0.setDaemon(true);
    }

    /**
     * Returns a builder for a consumer of {@code stream} in consumer group {@code group} that decodes entries as
     * {@code type} and hands them to {@code handler}.
     */
    public static <M> Builder<M> builder(
            UnifiedJedis redis, String stream, String group, Class<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(redis, stream, group, type, null, handler);
    }

    /** Like {@link #builder(UnifiedJedis, String, String, Class, ConflictAwareHandler)} for a generic type. */
    public static <M> Builder<M> builder(
            UnifiedJedis redis, String stream, String group, TypeReference<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(redis, stream, group, null, type, handler);
    }

    /** This consumer's name in the group. */
    public String consumerName() {
        return consumer;
    }

    /** The dead-letter stream's key. */
    public String deadLetterStream() {
        return deadLetterStream;
    }

    /**
     * Creates the group when it does not exist ({@code XGROUP CREATE <stream> <group> 0 MKSTREAM}: a new group
     * reads the stream from its start) and starts reading. When Redis is unreachable at start the reader keeps
     * trying.
     */
    @Override
    protected void doStart() {
        try {
            calls.ensureGroup();
        } catch (RuntimeException e) {
            LOG.warn("stream '{}': cannot create group '{}' yet, the reader retries: {}", stream, group, e.toString());
        }
        handlers = new HandlerLanes<>(threadName, core.settings(), this::isRunning, this::run, w -> free.release());
        reader0.start();
    }

    /**
     * Stops reading (the read in progress ends within the block timeout; entries not started stay pending),
     * waits for running handlers to finish and be acknowledged, then interrupts those still running. Entries not
     * acknowledged stay pending in the group and are delivered again: at the next start under the same consumer
     * name, or to another consumer after {@code claimIdle}. A consumer left with no pending entry is deleted from
     * the group.
     */
    @Override
    protected boolean doClose(long deadline) {
        synchronized (this) { // start() set the handlers under this monitor
            if (!wasStarted()) {
                return true;
            }
        }
        try {
            reader0.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean drained = handlers.stop(deadline);
        if (drained) {
            calls.deleteConsumers(deleteIdleMillis, true);
        }
        return drained;
    }

    private void readLoop() {
        boolean ownPending = true;
        StreamEntryID ownCursor = StreamGroup.START;
        StreamEntryID claimCursor = StreamGroup.START;
        StreamEntryID newest = StreamGroup.START; // the newest entry a read of new entries handed this consumer
        long nextClaim = System.nanoTime();
        long backoff = 0;
        while (isRunning()) {
            int permits = takePermits();
            if (permits == 0) {
                continue;
            }
            int started = 0;
            boolean readingNew = false;
            try {
                List<Delivery> got;
                // own pending entries first (left by an earlier run under this name), then claims: a claim
                // before them would hand this consumer entries that its own-pending read returns once more
                if (!ownPending && System.nanoTime() - nextClaim >= 0) {
                    StreamGroup.Claimed r = calls.claim(claimIdleMillis, claimCursor, permits);
                    claimCursor = r.cursor();
                    got = r.deliveries();
                    if (!got.isEmpty()) {
                        int n = got.size();
                        core.listener().call(l -> l.onReclaimed(n));
                    }
                    if (StreamGroup.START.equals(claimCursor) || got.isEmpty()) {
                        claimCursor = StreamGroup.START;
                        nextClaim = System.nanoTime() + claimIntervalNanos;
                        if (deleteIdleMillis >= 0) {
                            calls.deleteConsumers(deleteIdleMillis, false);
                        }
                    }
                } else if (ownPending) {
                    got = calls.read(permits, ownCursor, blockMillis);
                    if (got.isEmpty()) {
                        ownPending = false;
                    } else {
                        ownCursor = got.get(got.size() - 1).entry().getID();
                    }
                } else {
                    readingNew = true;
                    got = calls.read(permits, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY, blockMillis);
                    newest = got.isEmpty()
                            ? newest
                            : got.get(got.size() - 1).entry().getID();
                }
                for (Delivery d : got) {
                    Work<M> w = prepare(d);
                    handlers.submit(w.lane(), w);
                    started++;
                }
                backoff = 0;
            } catch (JedisDataException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("NOGROUP")) {
                    LOG.warn("stream '{}': group '{}' is gone, creating it again", stream, group);
                    backoff = pause(backoff, e, calls::ensureGroup);
                } else {
                    backoff = pause(backoff, e, null);
                }
            } catch (RuntimeException e) {
                // a lost reply may have left entries in its pending list after the newest seen: read them first
                ownPending |= readingNew;
                ownCursor = readingNew ? newest : ownCursor;
                backoff = pause(backoff, e, null);
            } finally {
                free.release(permits - started);
            }
        }
    }

    /** Waits for at least one free handler thread and takes up to batchSize of them; 0 when stopping. */
    private int takePermits() {
        try {
            if (!free.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                return 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopRunning();
            return 0;
        }
        int n = 1;
        while (n < batchSize && free.tryAcquire()) {
            n++;
        }
        return n;
    }

    private long pause(long backoff, RuntimeException e, Runnable then) {
        long next = backoff == 0 ? MIN_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        if (backoff == 0) {
            LOG.warn("stream '{}' group '{}': {}; retrying", stream, group, e.toString());
        } else {
            LOG.debug("stream '{}' group '{}': {}; retrying in {} ms", stream, group, e.toString(), next);
        }
        sleep(next);
        if (then != null && isRunning()) {
            try {
                then.run();
            } catch (RuntimeException again) {
                LOG.debug("stream '{}': {}", stream, again.toString());
            }
        }
        return next;
    }

    private void sleep(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        // wake every 50 ms to notice close()
        while (isRunning() && System.nanoTime() - until < 0) {
            try {
                Thread.sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * One entry for a handler thread, read on the reader thread so that its order key gives its lane: the decoded
     * message, or why the entry goes to the dead letters at once ({@code poison}), or neither when it was trimmed.
     */
    private record Work<M>(Delivery delivery, String payload, M message, String poison, int lane) {}

    private Work<M> prepare(Delivery d) {
        Map<String, String> fields = d.entry().getFields();
        if (fields == null) {
            return new Work<>(d, null, null, null, 0); // deleted from the stream (trimmed) while pending
        }
        String payload = fields.get(PAYLOAD_FIELD);
        if (payload == null) {
            String why = "the entry has no '" + PAYLOAD_FIELD + "' field; fields: " + fields.keySet();
            return new Work<>(d, null, null, why, 0);
        }
        PayloadReader.Decoded<M> decoded = core.payloads().read(payload);
        if (decoded.poison() != null) {
            return new Work<>(d, payload, null, decoded.poison(), 0);
        }
        try {
            return new Work<>(
                    d, payload, decoded.message(), null, core.settings().laneOf(decoded.message()));
        } catch (RuntimeException e) { // the order key function failed: the entry cannot be placed in order
            return new Work<>(d, payload, null, "the orderKey function failed: " + e, 0);
        }
    }

    private void run(Work<M> w) {
        Delivery d = w.delivery();
        StreamEntryID id = d.entry().getID();
        try {
            if (w.poison() != null) {
                deadLetter(d, w.payload(), w.poison());
                return;
            }
            if (w.message() == null) {
                ack(id); // trimmed while pending: nothing to run
                return;
            }
            int attempt = (int) Math.min(Integer.MAX_VALUE, d.deliveries());
            DeliveryRunner.Result r = core.runner().run(w.message(), id.toString(), attempt, this::isRunning);
            if (r instanceof DeliveryRunner.Result.Handled) {
                ack(id);
            } else if (r instanceof DeliveryRunner.Result.DeadLetter dl) {
                deadLetter(d, w.payload(), dl.reason());
            } // Abandoned: closing; the entry stays pending and comes back
        } catch (RuntimeException e) {
            // Redis failed while acknowledging or dead-lettering: the entry stays pending and comes back
            LOG.warn("stream '{}': entry {} stays pending: {}", stream, id, e.toString());
        } finally {
            free.release();
        }
    }

    private void deadLetter(Delivery d, String payload, String reason) {
        StreamEntry entry = d.entry();
        calls.deadLetter(d, deadLetterStream, DEAD_FIELDS, payload, reason);
        LOG.warn("stream '{}': entry {} dead-lettered to '{}': {}", stream, entry.getID(), deadLetterStream, reason);
        core.listener().acked(entry.getID().toString());
        core.listener().deadLettered(entry.getID().toString(), reason);
    }

    private void ack(StreamEntryID id) {
        calls.ack(id);
        core.listener().acked(id.toString());
    }

    @Override
    public String toString() {
        return "StreamConsumer[" + stream + ", group=" + group + ", consumer=" + consumer + ", concurrency="
                + core.settings().concurrency() + "]";
    }

    /**
     * Builds a {@link StreamConsumer}. The settings every adapter has ({@code concurrency}, {@code orderKey}, {@code
     * virtualThreads}, {@code maxAttempts}, {@code retryBackoff}, {@code objectMapper}, {@code listener}) are {@link
     * ConsumerBuilder}'s. Each setting may be set once; a second call is an {@link IllegalStateException}. Not
     * threadsafe.
     *
     * @param <M> the message type
     */
    public static final class Builder<M> extends ConsumerBuilder<M, StreamListener, Builder<M>> {
        private final UnifiedJedis redis;
        private final String stream;
        private final String group;
        private String consumerName;
        private Integer batchSize;
        private Duration block;
        private Duration claimIdle;
        private Duration claimInterval;
        private Duration deleteIdle;
        private String deadLetterStream;

        private Builder(
                UnifiedJedis redis,
                String stream,
                String group,
                Class<M> type,
                TypeReference<M> typeRef,
                ConflictAwareHandler<M> handler) {
            super(type, typeRef, handler, new StreamListener() {});
            this.redis = Require.notNull("redis", redis);
            this.stream = Require.notEmpty("stream", stream);
            this.group = Require.notEmpty("group", group);
        }

        /**
         * This consumer's name in the group (default {@code consumer-<pid>-<random>}). A name that stays the same
         * across restarts lets a restarted process take back its own pending entries at once, instead of after
         * {@code claimIdle}. Two live consumers must not share a name.
         */
        public Builder<M> consumerName(String name) {
            consumerName = Require.setOnce("consumerName", consumerName, Require.notEmpty("consumerName", name));
            return this;
        }

        /** The most entries one read takes (default: the concurrency, at least 10 and at most 100). */
        public Builder<M> batchSize(int n) {
            batchSize = Require.setOnce("batchSize", batchSize, Require.within("batchSize", n, 1, 10_000));
            return this;
        }

        /**
         * How long one {@code XREADGROUP} blocks waiting for new entries (default 500 ms). Keep it below the
         * client's socket timeout (Jedis default 2 s); it also bounds how long {@link #close()} waits for the
         * reader.
         */
        public Builder<M> block(Duration d) {
            Require.positive("block", d);
            block = Require.setOnce(
                    "block",
                    block,
                    Require.within("block", d, Duration.ofMillis(1), Duration.ofMillis(Integer.MAX_VALUE)));
            return this;
        }

        /**
         * How long an entry stays pending before any consumer may reclaim it (default 60 s): the time before a
         * dead consumer's entries or a failed entry are delivered again. It must exceed the longest handler run.
         */
        public Builder<M> claimIdle(Duration d) {
            claimIdle = Require.setOnce("claimIdle", claimIdle, Require.positive("claimIdle", d));
            return this;
        }

        /** How often the reader looks for idle pending entries (default: half of {@code claimIdle}). */
        public Builder<M> claimInterval(Duration d) {
            claimInterval = Require.setOnce("claimInterval", claimInterval, Require.positive("claimInterval", d));
            return this;
        }

        /**
         * Consumers of the group idle longer than this with no pending entry are deleted ({@code XGROUP
         * DELCONSUMER}) by the reader every {@code claimInterval} (default 1 h; {@code Duration.ZERO} turns the
         * sweep off). Keep it well above the longest pause of a live consumer; a live consumer is never idle for
         * longer than {@code block} between reads.
         */
        public Builder<M> deleteIdleConsumersAfter(Duration d) {
            deleteIdle = Require.setOnce(
                    "deleteIdleConsumersAfter", deleteIdle, Require.notNegative("deleteIdleConsumersAfter", d));
            return this;
        }

        /** The dead-letter stream's key (default {@code <stream>:dead}). */
        public Builder<M> deadLetterStream(String key) {
            deadLetterStream =
                    Require.setOnce("deadLetterStream", deadLetterStream, Require.notEmpty("deadLetterStream", key));
            return this;
        }

        /** Builds the consumer (not started). */
        public StreamConsumer<M> build() {
            return new StreamConsumer<>(this);
        }
    }
}
