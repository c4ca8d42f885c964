package io.github.deferlock.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.kafka.TopicConsumer;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.rabbitmq.RabbitConsumer;
import io.github.deferlock.streams.StreamConsumer;
import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.QpidBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;

/**
 * The {@code adapter.<broker>.coldRatio} metrics: whether messages on held (hot) keys eat the thread budget of a
 * broker adapter. Each round pre-fills a queue, topic or stream of its own with {@link #messages} messages and
 * consumes it with {@link #THREADS} handler threads whose handler sleeps {@link #HANDLER} (an I/O call, so the
 * thread budget, not the CPU, is what hot messages could take). The baseline has only distinct (cold) keys; the
 * deferlock side puts every tenth message on one of 3 keys that another client holds for the whole run, so those
 * are deferred ({@code OnConflict.DEFER}, no deferral worker: they only have to be stored). The figure is the
 * side's cold messages per second from its first handled message to its last cold one, divided by the same
 * round's baseline: 1.0 means the hot messages cost the cold ones nothing. One unrecorded baseline round runs
 * first, so the first measured side does not pay for a cold JVM and broker.
 *
 * <p>Each round also checks that both sides did the work they claim: every cold message handled once, every hot
 * message stored in the deferral queue once and never handled. A round that did not is a failure, not a figure.
 * This replaces the timed ratio assertions the adapters' own test suites used to make (a timed unit test
 * measures the CI machine's load, and the suites now check the same workload's correctness instead).
 */
final class AdapterRuns {

    static final int THREADS = 4;
    static final Duration HANDLER = Duration.ofMillis(2);
    static final List<String> HOT_KEYS = List.of("hot0", "hot1", "hot2");
    static final String BASELINE = "baseline";
    static final List<String> BROKERS = List.of("rabbitmq", "kafka", "streams");
    private static final Duration BOUND = Duration.ofSeconds(120);

    /** A message: its id and the key its handler locks (public so Jackson can read and store it). */
    public record Message(String id, String key) {}

    private final Redis redis;
    private final Settings settings;
    private final Results results;
    private final int messages;

    AdapterRuns(Redis redis, Settings settings, Results results) {
        this.redis = redis;
        this.settings = settings;
        this.results = results;
        this.messages = settings.adapterMessages();
    }

    static String id(String broker) {
        return "adapter." + broker + ".coldRatio";
    }

    /** One side's round over one broker: the adapter's consumer on a fresh queue of {@code messages}. */
    @FunctionalInterface
    private interface Consume {
        /** Fills {@code queue} with the messages of {@code keys}, consumes it with {@code handler}, waits for done. */
        void run(String queue, List<String> keys, ConflictAwareHandler<Message> handler, Done done) throws Exception;
    }

    /** Whether every cold message of the round is handled. */
    @FunctionalInterface
    private interface Done {
        boolean get();
    }

    void rabbitmq() throws Exception {
        try (QpidBroker broker = QpidBroker.start()) {
            ConnectionFactory cf = new ConnectionFactory();
            cf.setHost("127.0.0.1");
            cf.setPort(broker.port());
            cf.setUsername("guest");
            cf.setPassword("guest");
            try (Connection conn = cf.newConnection();
                    Channel ch = conn.createChannel()) {
                measure("rabbitmq", (queue, keys, handler, done) -> {
                    ch.queueDeclare(queue, true, false, false, null);
                    for (int i = 0; i < keys.size(); i++) {
                        // transient (delivery mode 1): a persistent one would time Qpid's Derby store
                        ch.basicPublish("", queue, null, json(queue + "-" + i, keys.get(i)));
                    }
                    try (RabbitConsumer<Message> c = RabbitConsumer.builder(cf, queue, Message.class, handler)
                            .concurrency(THREADS)
                            .build()
                            .start()) {
                        await(() -> c.isRunning() && done.get(), queue);
                    }
                });
            }
        }
    }

    void kafka() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start();
                KafkaProducer<byte[], byte[]> kp = new KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers",
                                broker.bootstrap(),
                                "linger.ms",
                                5,
                                "max.in.flight.requests.per.connection",
                                1,
                                "delivery.timeout.ms",
                                60_000),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            measure("kafka", (topic, keys, handler, done) -> {
                broker.createTopic(topic, THREADS);
                for (int i = 0; i < keys.size(); i++) {
                    kp.send(new ProducerRecord<>(
                            topic, keys.get(i).getBytes(StandardCharsets.UTF_8), json(topic + "-" + i, keys.get(i))));
                }
                kp.flush();
                try (TopicConsumer<Message> c = TopicConsumer.builder(
                                broker.consumerConfig(topic), topic, Message.class, handler)
                        .concurrency(THREADS)
                        .build()
                        .start()) {
                    await(() -> c.isRunning() && done.get(), topic);
                }
            });
        }
    }

    void streams() throws Exception {
        try (RedisClient client = redis.jedis()) {
            measure("streams", (stream, keys, handler, done) -> {
                try (Pipeline p = client.pipelined()) {
                    for (int i = 0; i < keys.size(); i++) {
                        p.xadd(
                                stream,
                                StreamEntryID.NEW_ENTRY,
                                Map.of(
                                        StreamConsumer.PAYLOAD_FIELD,
                                        new String(json(stream + "-" + i, keys.get(i)), StandardCharsets.UTF_8)));
                    }
                    p.sync();
                }
                try (StreamConsumer<Message> c = StreamConsumer.builder(client, stream, "g", Message.class, handler)
                        .concurrency(THREADS)
                        .build()
                        .start()) {
                    await(() -> c.isRunning() && done.get(), stream);
                }
            });
        }
    }

    private void measure(String broker, Consume consume) throws Exception {
        String id = id(broker);
        Map<Integer, Map<String, Double>> byRound = new ConcurrentHashMap<>();
        try (RedisClient client = redis.jedis();
                RedisClient other = redis.jedis();
                RedisLocks holder =
                        RedisLocks.builder(other).keyPrefix("bench:").build();
                RedisLocks locks =
                        RedisLocks.builder(client).keyPrefix("bench:").build()) {
            List<DistributedLock> held = new ArrayList<>();
            for (String k : HOT_KEYS) {
                DistributedLock l = holder.get("order:" + k);
                if (!l.tryLock(Duration.ZERO, Duration.ofMinutes(30))) {
                    throw new IllegalStateException("could not take the hot key " + k);
                }
                held.add(l);
            }
            try {
                // one unrecorded baseline round first: the first round of a fresh broker and consumer code runs
                // cold (JIT, connections), and whichever side the shuffle put first would pay for it
                round(client, locks, consume, broker + "-warmup", false);
                Rounds.run(id, settings.rounds(), List.of(BASELINE, Sides.DEFERLOCK), (side, round) -> {
                    double rate =
                            round(client, locks, consume, broker + "-" + side + "-" + round, !side.equals(BASELINE));
                    byRound.computeIfAbsent(round, r -> new ConcurrentHashMap<>())
                            .put(side, rate);
                    Progress.line("%-36s %-22s %s cold msgs/s", id, side + " r" + round, Report.number(rate));
                });
            } finally {
                held.forEach(DistributedLock::unlock);
            }
        }
        List<String> rates = new ArrayList<>();
        byRound.forEach((round, r) -> {
            Double base = r.get(BASELINE);
            Double hot = r.get(Sides.DEFERLOCK);
            if (base != null && hot != null) {
                results.add(id, Sides.DEFERLOCK, hot / base);
                rates.add("r" + round + " " + Report.number(base) + " → " + Report.number(hot));
            }
        });
        results.note(
                id,
                "method",
                "`" + consumerName(broker) + "` with " + THREADS + " handler threads (`concurrency(" + THREADS
                        + ")`), a `ConflictAwareHandler` (DEFER, no deferral worker) whose handler sleeps "
                        + HANDLER.toMillis() + " ms; each round pre-fills a fresh " + what(broker) + " with "
                        + messages
                        + " messages, after one unrecorded warm-up round; baseline: every key distinct; deferlock side: every tenth message on"
                        + " one of " + HOT_KEYS.size() + " keys another client holds for the run; figure = the side's"
                        + " cold messages per second (first handled to last cold handled) ÷ the same round's baseline;"
                        + " each round checks every cold message handled once and every hot one deferred once (parked"
                        + " behind its key: ordered DEFER, the default), never handled");
        results.note(id, "cold msgs/s per round (baseline → with hot keys)", String.join("; ", rates));
    }

    /** Runs one side's round and returns its cold messages per second; throws when the work was not all done. */
    private double round(RedisClient client, RedisLocks locks, Consume consume, String tag, boolean withHot)
            throws Exception {
        List<String> keys = new ArrayList<>(messages);
        int hot = 0;
        for (int i = 0; i < messages; i++) {
            if (withHot && i % 10 == 0) {
                keys.add(HOT_KEYS.get(hot++ % HOT_KEYS.size()));
            } else {
                keys.add("c" + i); // cold keys never collide, so no cold message is ever deferred
            }
        }
        int cold = messages - hot;
        AtomicInteger coldDone = new AtomicInteger();
        AtomicInteger hotRan = new AtomicInteger();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        Map<String, Boolean> seen = new ConcurrentHashMap<>();
        AtomicInteger twice = new AtomicInteger();
        long parkedBefore = parked(client);
        try (Deferrals deferrals =
                Deferrals.builder(client, "bench-adapter-" + tag).build()) {
            ConflictAwareHandler<Message> handler = ConflictAwareHandler.builder("bench-" + tag, Message.class, locks)
                    .key(m -> "order:" + m.key())
                    .messageId(Message::id)
                    .handler(m -> {
                        first.compareAndSet(0, System.nanoTime());
                        Thread.sleep(HANDLER.toMillis());
                        if (HOT_KEYS.contains(m.key())) {
                            hotRan.incrementAndGet();
                        } else {
                            if (seen.putIfAbsent(m.id(), Boolean.TRUE) != null) {
                                twice.incrementAndGet();
                            }
                            last.set(System.nanoTime());
                            coldDone.incrementAndGet();
                        }
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            consume.run(tag, keys, handler, () -> coldDone.get() >= cold);
            // ordered DEFER (the default) parks each hot message behind its key: the key's parked FIFO grows by
            // one per message, and the deferral queue holds one drain token per key, not the messages. The last
            // hot messages may still be parking when the last cold one is done.
            long deadline = System.nanoTime() + BOUND.toNanos();
            long parked = parked(client) - parkedBefore;
            while (parked < hot && System.nanoTime() < deadline) {
                Thread.sleep(2);
                parked = parked(client) - parkedBefore;
            }
            if (coldDone.get() != cold || twice.get() != 0 || hotRan.get() != 0 || parked != hot) {
                throw new IllegalStateException(tag + ": not the same work: cold handled " + coldDone.get() + " of "
                        + cold + " (" + twice.get() + " twice), hot handled " + hotRan.get() + ", parked " + parked
                        + " of " + hot + " (deferral queue: "
                        + deferrals.queue().size(JobState.DUE) + " due, "
                        + deferrals.queue().size(JobState.IN_FLIGHT) + " in flight)");
            }
        }
        return cold / ((last.get() - first.get()) / 1e9);
    }

    /** Messages parked behind the hot keys (ordered DEFER): the sum of their parked FIFOs' lengths. */
    private static long parked(RedisClient client) {
        long n = 0;
        for (String k : HOT_KEYS) {
            n += client.llen("bench:{order:" + k + "}:parked");
        }
        return n;
    }

    private static void await(Done done, String queue) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!done.get()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(queue + ": cold messages not all handled within " + BOUND);
            }
            Thread.sleep(2);
        }
    }

    private static byte[] json(String id, String key) {
        return ("{\"id\":\"" + id + "\",\"key\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private static String consumerName(String broker) {
        return switch (broker) {
            case "rabbitmq" -> "RabbitConsumer";
            case "kafka" -> "TopicConsumer";
            default -> "StreamConsumer";
        };
    }

    private static String what(String broker) {
        return switch (broker) {
            case "rabbitmq" -> "queue on an in-process Qpid Broker-J (AMQP 0-9-1, transient messages)";
            case "kafka" -> "topic of " + THREADS + " partitions on an in-process KRaft Kafka broker";
            default -> "stream on the run's redis-server";
        };
    }
}
