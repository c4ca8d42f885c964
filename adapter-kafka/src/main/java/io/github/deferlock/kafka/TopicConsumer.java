package io.github.deferlock.kafka;

import com.fasterxml.jackson.core.type.TypeReference;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.consumer.AbstractConsumer;
import io.github.deferlock.consumer.ConsumerBuilder;
import io.github.deferlock.consumer.internal.ConsumerCore;
import io.github.deferlock.consumer.internal.DeliveryRunner;
import io.github.deferlock.consumer.internal.InFlight;
import io.github.deferlock.consumer.internal.KeyedLanes;
import io.github.deferlock.consumer.internal.PayloadReader;
import io.github.deferlock.kafka.internal.DeadLetterTopic;
import io.github.deferlock.kafka.internal.OffsetCommitter;
import io.github.deferlock.kafka.internal.OwnedPartition;
import io.github.deferlock.redis.internal.HandlerThreads;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka consumer-group member that hands every record of a topic to a {@link ConflictAwareHandler} on N handler
 * threads and commits a partition's offset only up to the highest record below which every record is done:
 * processed, skipped as a duplicate, dead-lettered, or — with {@code OnConflict.DEFER} — deferred with its
 * deferral stored in Redis. A record of a hot key is deferred in one Redis write and counts as done, so it never
 * holds back the other keys of its partition, and it is never lost: until its deferral is stored, the committed
 * offset stays below it.
 *
 * <pre>{@code
 * TopicConsumer<OrderEvent> consumer = TopicConsumer.builder(kafkaConfig, "order-events", OrderEvent.class, orders)
 *         .concurrency(8)
 *         .build()
 *         .start();
 * // ... on shutdown:
 * consumer.close();   // stop polling, finish running records, commit; the rest is delivered again
 * }</pre>
 *
 * <p><b>Threads.</b> One poller thread owns the {@code KafkaConsumer} (which is not threadsafe): it polls, hands
 * each record to one of {@code concurrency} handler threads (platform or virtual) and commits. A record goes to
 * the thread chosen by its Kafka key (records without a key: by partition), and each thread runs its records one
 * after the other, in offset order. At most {@code maxInFlight} records (plus one poll's worth) wait or run; above
 * that the poller pauses its partitions and keeps polling, so the group does not evict it.
 *
 * <p><b>Ordering.</b> Records of one Kafka key share a partition and a handler thread, so those that are handled
 * (processed, duplicate, retried, dead-lettered) run one at a time in offset order. A record that is
 * <em>deferred</em> leaves that order: it runs later from the deferral queue, when its backoff delay is over and
 * its lock is free, so records of the same key that arrive after it may run before it, and two deferred records
 * of one key may run in either order. A record never runs before an earlier, not deferred record of its key,
 * except across a rebalance whose {@code revokeTimeout} ran out while that record was still running, or whose
 * consumer was stopped past its session and its lock's lease while running it (see Rebalances). If the
 * handler needs a key's records in order, keep them off DEFER or make it order-insensitive (versions, fencing
 * tokens, idempotent upserts). docs/strategies.md has the details.
 *
 * <p><b>Commits.</b> Every {@code commitInterval} the poller commits, per partition, the offset below which
 * every record is done ({@code commitAsync}); at a rebalance and at close it commits synchronously. A process
 * that dies at any point leaves committed only records that were done, so every other record is delivered
 * again: with a {@code messageId} function on the handler, its done marker turns a record that ran before the
 * crash into {@code DUPLICATE}, and a record already deferred is not stored twice.
 *
 * <p><b>Rebalances.</b> When the group takes partitions away, records of them not yet started are dropped, the
 * running ones get up to {@code revokeTimeout} to finish, and the safe offsets are committed; the new owner reads
 * from the first record that was not done (records done after it come back as {@code DUPLICATE}s). Partitions
 * <em>lost</em> (the session expired: the process stopped or paused longer than {@code session.timeout.ms}) are
 * dropped without a commit once the consumer hears of the loss, at its first poll after it runs again. Until then
 * its handler threads go on starting queued records of them beside the new owner: the key's lock and the done
 * marker make each a first run, a {@code DUPLICATE} or parked, never a second run, and the group refuses the
 * consumer's commits. A handling the stop cut is run again by the new owner if its lock's lease ran out meanwhile;
 * when it goes on, its fencing token is stale and its unlock fails ({@code LockLostException}, a handler failure
 * whose retry finds the done marker or is dropped with the partition).
 *
 * <p><b>Failures.</b> When a lock or deferral call cannot reach Redis (unreachable, {@code LOADING}, a failover),
 * the record waits on its thread and is tried again once Redis answers; the other handler threads pause meanwhile
 * and the poller pauses its partitions once {@code maxInFlight} records wait. That never costs an attempt, never
 * dead-letters the record, and its offset is not committed past it. When the handler itself throws (or the lock
 * was lost, or a THROW/SLEEP_RETRY conflict), the record uses an attempt and is tried again on its thread after
 * {@code retryBackoff} (default 100 ms doubling to 5 s), which keeps the per-key order; on attempt {@code
 * maxAttempts} it is written to the dead-letter topic (default {@code <topic>.dead}, same key and value, headers
 * {@value #REASON_HEADER}, {@value #SOURCE_HEADER}) and counts as done. A value that does not decode as JSON of
 * the message type is dead-lettered at once.
 *
 * <p><b>Broker restarts.</b> The Kafka client reconnects by itself; the poller keeps polling, failed async
 * commits are retried at the next interval, and handler threads go on with what they have. Nothing is rebuilt.
 *
 * <p><b>Configuration.</b> {@code kafkaConfig} needs {@code bootstrap.servers} and {@code group.id}; this class
 * sets {@code enable.auto.commit=false} and byte-array deserializers, and {@code auto.offset.reset=earliest}
 * unless given (a new group reads the topic from its start). The dead-letter producer gets the producer settings
 * of the same map (security, client id, ...).
 *
 * <p>Threadsafe; the builder is not.
 *
 * @param <M> the message type
 */
public final class TopicConsumer<M> extends AbstractConsumer<TopicConsumer<M>> {

    private static final Logger LOG = LoggerFactory.getLogger(TopicConsumer.class);

    /** The header of a dead-lettered record that says why. */
    public static final String REASON_HEADER = "x-deferlock-reason";
    /** The header of a dead-lettered record that names its source, {@code <topic>-<partition>@<offset>}. */
    public static final String SOURCE_HEADER = "x-deferlock-source";

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    private static final AtomicInteger SERIAL = new AtomicInteger();

    private final ConsumerCore<M, TopicListener> core;
    private final Map<String, Object> consumerConfig;
    private final String topic;
    private final int maxInFlight;
    private final long commitIntervalNanos;
    private final Duration revokeTimeout;
    private final String deadLetterTopic;
    private final String name;
    private final Map<TopicPartition, OwnedPartition> partitions = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final InFlight active = new InFlight();
    private KeyedLanes<Work> lanes;
    private volatile long closeDeadline;
    private volatile boolean drainedInTime = true;
    private KafkaConsumer<byte[], byte[]> consumer;
    private DeadLetterTopic deadLetters;
    private OffsetCommitter committer;
    private ExecutorService executor;
    private Thread poller;

    private TopicConsumer(Builder<M> b) {
        super("consumer of topic '" + b.topic + "'");
        this.topic = b.topic;
        this.core = ConsumerCore.of(b.settings(), "topic '" + topic + "'");
        this.maxInFlight = Require.orDefault(b.maxInFlight, 1_000);
        this.commitIntervalNanos =
                Require.orDefault(b.commitInterval, Duration.ofSeconds(1)).toNanos();
        this.revokeTimeout = Require.orDefault(b.revokeTimeout, Duration.ofSeconds(10));
        this.deadLetterTopic = Require.orDefault(b.deadLetterTopic, topic + ".dead");
        this.name = "deferlock-kafka-" + topic + "-" + SERIAL.incrementAndGet();
        this.consumerConfig = new HashMap<>(b.config);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumerConfig.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumerConfig.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    }

    /**
     * Returns a builder for a consumer of {@code topic} with the Kafka consumer settings {@code kafkaConfig} (at
     * least {@code bootstrap.servers} and {@code group.id}) that decodes record values as JSON of {@code type} and
     * hands them to {@code handler}.
     *
     * @throws IllegalArgumentException when {@code kafkaConfig} lacks {@code bootstrap.servers} or {@code
     *     group.id}
     */
    public static <M> Builder<M> builder(
            Map<String, Object> kafkaConfig, String topic, Class<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(kafkaConfig, topic, type, null, handler);
    }

    /** Like {@link #builder(Map, String, Class, ConflictAwareHandler)} for a generic type. */
    public static <M> Builder<M> builder(
            Map<String, Object> kafkaConfig, String topic, TypeReference<M> type, ConflictAwareHandler<M> handler) {
        return new Builder<>(kafkaConfig, topic, null, type, handler);
    }

    /** The dead-letter topic's name. */
    public String deadLetterTopic() {
        return deadLetterTopic;
    }

    /**
     * Subscribes to the topic and starts the poller and the handler threads. The broker need not be reachable
     * yet: the client keeps trying.
     *
     * @throws KafkaException when the client cannot be created from the settings
     */
    @Override
    protected void doStart() {
        consumer = new KafkaConsumer<>(consumerConfig);
        committer =
                new OffsetCommitter(consumer, topic, (tp, o) -> core.listener().call(l -> l.onCommitted(tp, o)));
        deadLetters = new DeadLetterTopic(consumerConfig, deadLetterTopic, REASON_HEADER, SOURCE_HEADER);
        executor = HandlerThreads.create(
                name, core.settings().concurrency(), core.settings().virtualThreads());
        lanes = new KeyedLanes<>(core.settings().concurrency(), executor, this::runWork);
        poller = new Thread(this::pollLoop, name + "-poller");
        poller.setDaemon(true);
        poller.start();
    }

    /**
     * Stops polling, drops records not yet started, waits for running handlers to finish, commits the safe
     * offsets and leaves the group: every record not committed is delivered again to the group.
     */
    @Override
    protected boolean doClose(long deadline) {
        closeDeadline = deadline;
        synchronized (this) {
            if (!wasStarted()) {
                return true;
            }
        }
        consumer.wakeup();
        try {
            // the poller waits for the handlers until the deadline, then commits and closes the client
            long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            poller.join(left + OffsetCommitter.timeout().toMillis() + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drainedInTime = false;
        }
        executor.shutdownNow();
        deadLetters.close();
        return drainedInTime;
    }
    // ---- the poller ----

    private void pollLoop() {
        long nextCommit = System.nanoTime() + commitIntervalNanos;
        long backoff = 0;
        try {
            consumer.subscribe(List.of(topic), new Rebalance());
            while (isRunning()) {
                try {
                    throttle();
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        dispatch(r);
                    }
                    if (System.nanoTime() - nextCommit >= 0) {
                        committer.commitAsync(partitions);
                        nextCommit = System.nanoTime() + commitIntervalNanos;
                    }
                    backoff = 0;
                } catch (WakeupException e) {
                    // close() woke the poll; the loop condition ends it
                } catch (KafkaException e) {
                    backoff = backoff == 0 ? MIN_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                    LOG.warn("topic '{}': poll failed, again in {} ms: {}", topic, backoff, e.toString());
                    sleepQuietly(backoff);
                }
            }
        } catch (RuntimeException e) {
            LOG.error("topic '{}': the poller stopped", topic, e);
        } finally {
            shutdown();
        }
    }

    /** Pauses every assigned partition while too many records wait or run; resumes below half of the limit. */
    private void throttle() {
        int n = inFlight.get();
        if (n >= maxInFlight) {
            consumer.pause(consumer.assignment());
        } else if (n <= maxInFlight / 2 && !consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
    }

    private void dispatch(ConsumerRecord<byte[], byte[]> r) {
        OwnedPartition p = partitions.get(new TopicPartition(r.topic(), r.partition()));
        if (p == null) {
            return; // not ours any more; the next owner reads it
        }
        p.offsets.started(r.offset());
        inFlight.incrementAndGet();
        int hash = r.key() != null ? Arrays.hashCode(r.key()) : Integer.hashCode(r.partition());
        lanes.submit(hash, new Work(p, r));
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            for (TopicPartition tp : assigned) {
                partitions.put(tp, new OwnedPartition(tp));
            }
            if (!assigned.isEmpty()) {
                LOG.debug("topic '{}': assigned {}", topic, assigned);
                core.listener().call(l -> l.onAssigned(assigned));
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            giveUp(revoked, false);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            giveUp(lost, true);
        }
    }

    /** Drops records not started, lets running ones finish (bounded), commits unless lost, forgets the partitions. */
    private void giveUp(Collection<TopicPartition> gone, boolean lost) {
        List<OwnedPartition> ps = new ArrayList<>();
        for (TopicPartition tp : gone) {
            OwnedPartition p = partitions.get(tp);
            if (p != null) {
                p.revoke();
                ps.add(p);
            }
        }
        if (ps.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + revokeTimeout.toNanos();
        if (!isRunning() && closeDeadline != 0) {
            deadline = Math.min(deadline, closeDeadline);
        }
        for (OwnedPartition p : ps) {
            p.awaitIdle(deadline);
        }
        if (!lost) {
            committer.commitSync(ps);
        }
        for (OwnedPartition p : ps) {
            partitions.remove(p.tp, p);
        }
        LOG.debug("topic '{}': {} {}", topic, lost ? "lost" : "revoked", gone);
        core.listener().call(l -> l.onRevoked(gone, lost));
    }

    private void shutdown() {
        // records not started are dropped by the handler threads (running is false); wait for the running ones
        long deadline = closeDeadline == 0 ? System.nanoTime() : closeDeadline;
        if (!active.awaitIdle(deadline)) {
            drainedInTime = false;
        }
        try {
            committer.commitSync(new ArrayList<>(partitions.values()));
        } catch (RuntimeException e) {
            LOG.warn("topic '{}': final commit failed: {}", topic, e.toString());
        }
        try {
            consumer.close(CloseOptions.timeout(
                    Duration.ofSeconds(5))); // leaves the group; the revocation commits nothing new
        } catch (RuntimeException e) {
            LOG.debug("topic '{}': closing the client: {}", topic, e.toString());
        }
        stopRunning();
    }

    // ---- the handler threads ----

    /** One record handed to a handler thread, with the partition it belongs to. */
    private record Work(OwnedPartition partition, ConsumerRecord<byte[], byte[]> record) {}

    private void runWork(Work w) {
        try {
            if (isRunning() && w.partition().enter()) {
                active.enter();
                try {
                    run(w);
                } finally {
                    w.partition().exit();
                    active.exit();
                }
            }
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void run(Work w) {
        ConsumerRecord<byte[], byte[]> r = w.record();
        String id = r.topic() + "-" + r.partition() + "@" + r.offset();
        PayloadReader.Decoded<M> decoded = core.payloads().read(r.value());
        DeliveryRunner.Result result = decoded.poison() != null
                ? new DeliveryRunner.Result.DeadLetter(decoded.poison())
                : core.runner()
                        .run(
                                decoded.message(),
                                id,
                                1,
                                () -> isRunning() && !w.partition().isRevoked());
        if (result instanceof DeliveryRunner.Result.Handled
                || (result instanceof DeliveryRunner.Result.DeadLetter d && deadLetter(w, id, d.reason()))) {
            w.partition().offsets.done(r.offset());
        } // Abandoned, or not dead-lettered: not done, delivered again to whoever owns the partition next
    }

    private boolean deadLetter(Work w, String id, String reason) {
        boolean written = deadLetters.write(
                w.record(), id, reason, () -> isRunning() && !w.partition().isRevoked());
        if (written) {
            core.listener().deadLettered(id, reason);
        }
        return written;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "TopicConsumer[" + topic + ", concurrency=" + core.settings().concurrency() + ", maxInFlight="
                + maxInFlight + "]";
    }

    /**
     * Builds a {@link TopicConsumer}. The settings every adapter has ({@code concurrency} — handler threads; records
     * of one key always share one —, {@code virtualThreads}, {@code maxAttempts}, {@code retryBackoff}, {@code
     * objectMapper}, {@code listener}) are {@link ConsumerBuilder}'s. Each setting may be set once; a second call is an {@link
     * IllegalStateException}. Not threadsafe.
     *
     * @param <M> the message type
     */
    public static final class Builder<M> extends ConsumerBuilder<M, TopicListener, Builder<M>> {
        private final Map<String, Object> config;
        private final String topic;
        private Integer maxInFlight;
        private Duration commitInterval;
        private Duration revokeTimeout;
        private String deadLetterTopic;

        private Builder(
                Map<String, Object> config,
                String topic,
                Class<M> type,
                TypeReference<M> typeRef,
                ConflictAwareHandler<M> handler) {
            super(type, typeRef, handler, new TopicListener() {});
            Require.notNull("kafkaConfig", config);
            for (String required : List.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG)) {
                if (config.get(required) == null) {
                    throw new IllegalArgumentException("kafkaConfig has no '" + required + "'");
                }
            }
            this.config = Map.copyOf(config);
            this.topic = Require.notEmpty("topic", topic);
        }

        /**
         * How many records may wait or run before the poller pauses its partitions (default 1,000, at most
         * 1,000,000); one poll ({@code max.poll.records}) may go past it.
         */
        public Builder<M> maxInFlight(int n) {
            maxInFlight = Require.setOnce("maxInFlight", maxInFlight, Require.within("maxInFlight", n, 1, 1_000_000));
            return this;
        }

        /** How often the safe offsets are committed (default 1 s). */
        public Builder<M> commitInterval(Duration d) {
            commitInterval = Require.setOnce("commitInterval", commitInterval, Require.positive("commitInterval", d));
            return this;
        }

        /**
         * How long a rebalance waits for running records of the partitions it takes away before it commits
         * (default 10 s); keep it well under {@code max.poll.interval.ms}.
         */
        public Builder<M> revokeTimeout(Duration d) {
            revokeTimeout = Require.setOnce("revokeTimeout", revokeTimeout, Require.positive("revokeTimeout", d));
            return this;
        }

        /** The dead-letter topic (default {@code <topic>.dead}). */
        public Builder<M> deadLetterTopic(String name) {
            deadLetterTopic =
                    Require.setOnce("deadLetterTopic", deadLetterTopic, Require.notEmpty("deadLetterTopic", name));
            return this;
        }

        /**
         * Builds the consumer (not started).
         *
         * @throws IllegalStateException when {@code orderKey} or {@code anyOrder} was set: records run in the order
         *     of their Kafka key
         */
        public TopicConsumer<M> build() {
            if (orderChosen()) {
                throw new IllegalStateException("orderKey and anyOrder are not settings of the Kafka consumer: records"
                        + " of one Kafka key run in offset order; give records the key to order by");
            }
            return new TopicConsumer<>(this);
        }
    }
}
