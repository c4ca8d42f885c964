package io.github.deferlock.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.ConflictStats;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.kafka.TopicConsumer;
import io.github.deferlock.kafka.TopicProducer;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.rabbitmq.RabbitConsumer;
import io.github.deferlock.rabbitmq.RabbitProducer;
import io.github.deferlock.streams.StreamConsumer;
import io.github.deferlock.streams.StreamProducer;
import io.github.deferlock.testing.KafkaBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import redis.clients.jedis.UnifiedJedis;

/** One run of the order-event workload under one conflict strategy. */
final class Workload {

    private final UnifiedJedis redis;
    private final Options options;
    private final OnConflict strategy;
    private final PrintStream progress;
    private final String prefix;
    private final Brokers brokers;

    Workload(
            UnifiedJedis redis,
            Brokers brokers,
            Options options,
            OnConflict strategy,
            PrintStream progress,
            String runId) {
        this.redis = redis;
        this.brokers = brokers;
        this.options = options;
        this.strategy = strategy;
        this.progress = progress;
        this.prefix = "demo:" + runId + ":" + strategy.name().toLowerCase(java.util.Locale.ROOT) + ":";
    }

    /** The figures of one run. */
    record Report(
            OnConflict strategy,
            int events,
            long processed,
            long conflicts,
            long retries,
            long deferrals,
            long deadLetters,
            long duplicates,
            long lost,
            long lostUpdates,
            double throughput,
            double p50Millis,
            double p99Millis,
            Duration slept,
            Duration elapsed) {}

    Report run() throws InterruptedException {
        ConflictStats stats = new ConflictStats();
        AtomicLong processed = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        LinkedBlockingQueue<OrderEvent> source = new LinkedBlockingQueue<>();
        long started = System.nanoTime();

        try (RedisLocks locks =
                        RedisLocks.builder(redis).keyPrefix(prefix + "lock:").build();
                Deferrals deferrals = Deferrals.builder(redis, prefix + "deferred")
                        .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(200), 2.0)
                                .withJitter(0.2))
                        .maxDeferrals(50)
                        .mode(options.deferMode())
                        .build()) {
            ConflictAwareHandler<OrderEvent> handler = ConflictAwareHandler.builder(
                            "order-events", OrderEvent.class, locks)
                    .key(e -> "order:" + e.orderId())
                    .messageId(OrderEvent::eventId)
                    .handler(e -> {
                        String counter = prefix + "order:" + e.orderId();
                        String before = redis.get(counter);
                        long value = before == null ? 0 : Long.parseLong(before);
                        if (options.handleMillis() > 0) {
                            Thread.sleep(options.handleMillis()); // the work done while the order is locked
                        }
                        redis.set(counter, Long.toString(value + 1)); // a racy read-modify-write: needs the lock
                        if (redis.sadd(prefix + "seen", e.eventId()) == 0) {
                            duplicates.incrementAndGet();
                        }
                        latencies.add(System.nanoTime() - e.producedNanos());
                        processed.incrementAndGet();
                    })
                    .onConflict(strategy)
                    .sleepRetry(new SleepRetry(
                            Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(50), 2.0)
                                    .withJitter(0.2),
                            50,
                            Duration.ofSeconds(5)))
                    .deferrals(deferrals)
                    .listener(stats)
                    .build();
            if (strategy == OnConflict.DEFER) {
                deferrals.startWorker(2);
            }

            List<Thread> workers = new ArrayList<>();
            List<AutoCloseable> consumers = new ArrayList<>();
            Consumer<OrderEvent> sink;
            if (options.source().equals("kafka")) {
                // a topic keyed by event id: records of one order spread over partitions and handler threads, so
                // they meet on the order's lock (a topic keyed by order would serialize each order on one thread).
                // THROW and an exhausted SLEEP_RETRY are tried again on the record's thread after a backoff.
                KafkaBroker kafka = brokers.kafka();
                String topic = prefix.replace(':', '.') + "source";
                kafka.createTopic(topic, 4);
                KafkaProducer<byte[], byte[]> kp = new KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers",
                                kafka.bootstrap(),
                                "linger.ms",
                                1,
                                "max.in.flight.requests.per.connection",
                                1), // see KafkaBroker.createTopic: a fresh topic can refuse the first batches
                        new ByteArraySerializer(),
                        new ByteArraySerializer());
                consumers.add(() -> kp.close(Duration.ofSeconds(5)));
                TopicProducer topicProducer = new TopicProducer(kp, topic);
                sink = e -> topicProducer.send(e.eventId(), e);
                consumers.add(
                        0,
                        TopicConsumer.builder(kafka.consumerConfig("demo"), topic, OrderEvent.class, handler)
                                .concurrency(options.workers())
                                .maxAttempts(10_000)
                                .build()
                                .start());
            } else if (options.source().equals("rabbit")) {
                // a queue consumed on one channel by `workers` handler threads: THROW and an exhausted SLEEP_RETRY
                // leave the message unacknowledged and run it again in place after the adapter's retryBackoff
                ConnectionFactory factory = new ConnectionFactory();
                factory.setHost("127.0.0.1");
                factory.setPort(brokers.rabbit().port());
                factory.setUsername("guest");
                factory.setPassword("guest");
                String queue = prefix + "source";
                consumers.add(RabbitConsumer.builder(factory, queue, OrderEvent.class, handler)
                        .concurrency(options.workers())
                        .prefetch(10)
                        .maxAttempts(10_000)
                        .build()
                        .start());
                try {
                    Connection connection = factory.newConnection();
                    consumers.add(connection);
                    RabbitProducer rabbitProducer = new RabbitProducer(connection.createChannel(), queue);
                    sink = e -> {
                        try {
                            rabbitProducer.publish(e);
                        } catch (IOException io) {
                            throw new UncheckedIOException(io);
                        }
                    };
                } catch (IOException | TimeoutException e) {
                    throw new IllegalStateException("cannot connect to the AMQP broker", e);
                }
            } else if (options.source().equals("streams")) {
                // the source is a Redis stream: THROW and an exhausted SLEEP_RETRY leave the entry pending, and
                // the group hands it out again after claimIdle (the broker's redelivery)
                StreamProducer streamProducer =
                        StreamProducer.builder(redis, prefix + "source").build();
                sink = streamProducer::add;
                consumers.add(StreamConsumer.builder(redis, prefix + "source", "demo", OrderEvent.class, handler)
                        .concurrency(options.workers())
                        .claimIdle(Duration.ofMillis(500))
                        .claimInterval(Duration.ofMillis(100))
                        .maxAttempts(10_000)
                        .build()
                        .start());
            } else {
                sink = source::add;
                for (int w = 0; w < options.workers(); w++) {
                    Thread t = new Thread(() -> consume(source, handler), "demo-worker-" + w);
                    t.setDaemon(true);
                    t.start();
                    workers.add(t);
                }
            }
            Thread producer = new Thread(() -> produce(sink), "demo-producer");
            producer.setDaemon(true);
            producer.start();

            long lastPrint = System.nanoTime();
            long deadline = started + TimeUnit.MINUTES.toNanos(5);
            while (processed.get() < options.events() && System.nanoTime() < deadline) {
                Thread.sleep(50);
                if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(1)) {
                    progress.printf(
                            "  [%s] %d/%d processed, %d conflicts, %d deferred%n",
                            strategy, processed.get(), options.events(), stats.conflicts(), stats.deferrals());
                    lastPrint = System.nanoTime();
                }
            }
            producer.interrupt();
            workers.forEach(Thread::interrupt);
            for (Thread t : workers) {
                t.join(5000);
            }
            for (AutoCloseable c : consumers) {
                closeQuietly(c);
            }
            long elapsed = System.nanoTime() - started;
            long seen = redis.scard(prefix + "seen");
            long counted = 0;
            for (int o = 0; o < options.orders(); o++) {
                String v = redis.get(prefix + "order:" + o);
                counted += v == null ? 0 : Long.parseLong(v);
            }
            long dead = deferrals.queue().size(JobState.DEAD);
            List<Long> sorted = new ArrayList<>(latencies);
            sorted.sort(null);
            return new Report(
                    strategy,
                    options.events(),
                    processed.get(),
                    stats.conflicts(),
                    stats.retries(),
                    stats.deferrals(),
                    dead,
                    duplicates.get() + stats.duplicatesSkipped(),
                    options.events() - seen,
                    Math.max(0, seen - counted),
                    processed.get() / (elapsed / 1e9),
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.99),
                    stats.slept(),
                    Duration.ofNanos(elapsed));
        } finally {
            cleanUp();
        }
    }

    private void produce(Consumer<OrderEvent> source) {
        SplittableRandom random = new SplittableRandom(42);
        long interval = TimeUnit.SECONDS.toNanos(1) / options.rate();
        long next = System.nanoTime();
        int cold = options.orders() - options.hotOrders();
        for (int i = 0; i < options.events(); i++) {
            int order;
            if (options.hotOrders() > 0 && (cold == 0 || random.nextDouble() < options.hotShare())) {
                order = random.nextInt(options.hotOrders());
            } else {
                order = options.hotOrders() + random.nextInt(cold);
            }
            source.accept(new OrderEvent("e" + i, order, System.nanoTime()));
            next += interval;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    private void consume(LinkedBlockingQueue<OrderEvent> source, ConflictAwareHandler<OrderEvent> handler) {
        while (!Thread.currentThread().isInterrupted()) {
            OrderEvent e;
            try {
                e = source.take();
            } catch (InterruptedException ie) {
                return;
            }
            try {
                Outcome outcome = handler.handle(e);
                assert outcome != null;
            } catch (LockConflictException conflict) {
                source.add(e); // THROW (or SLEEP_RETRY out of budget): the source delivers it again later
            } catch (RuntimeException failure) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                source.add(e);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // the run is over; its figures are taken
        }
    }

    private static double percentile(List<Long> sortedNanos, double q) {
        if (sortedNanos.isEmpty()) {
            return 0;
        }
        int i = (int) Math.ceil(q * sortedNanos.size()) - 1;
        return sortedNanos.get(Math.max(0, Math.min(i, sortedNanos.size() - 1))) / 1e6;
    }

    private void cleanUp() {
        try {
            for (String key : redis.keys("*" + prefix + "*")) {
                redis.del(key);
            }
        } catch (RuntimeException ignored) {
            // best effort
        }
    }
}
