package io.github.deferlock.testing;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker for tests and demos: one KRaft node that is broker and controller at once, started in this JVM on
 * free loopback ports with its log under a temp dir, so {@link #restart()} keeps topics, records and committed
 * offsets like a broker restart does. Group settings are short (no initial rebalance delay, sessions down to
 * 500 ms) so consumer groups settle in a test's time.
 *
 * <p>Needs {@code org.apache.kafka:kafka_2.13} on the classpath (an optional dependency of test-support: declare
 * it where you use this class). Not threadsafe.
 */
public final class KafkaBroker implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final int controllerPort;
    private KafkaRaftServer server;

    private KafkaBroker(Path dir, int port, int controllerPort) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /**
     * Formats a fresh log dir under a temp dir and starts the node on two free loopback ports.
     *
     * @throws IllegalStateException when it cannot start
     */
    public static KafkaBroker start() {
        try {
            KafkaBroker b = new KafkaBroker(Files.createTempDirectory("kafka"), freePort(), freePort());
            b.format();
            b.launch();
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /**
     * Consumer settings for this broker: {@code bootstrap.servers}, {@code group.id} and a 3 s session, so a
     * killed member leaves the group quickly.
     */
    public Map<String, Object> consumerConfig(String group) {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", bootstrap());
        c.put("group.id", group);
        c.put("session.timeout.ms", 3_000);
        c.put("heartbeat.interval.ms", 500);
        c.put("reconnect.backoff.max.ms", 500);
        return c;
    }

    /** Creates {@code topic} with {@code partitions} partitions (replication factor 1) and waits for its leaders. */
    public void createTopic(String topic, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
            // a producer that writes before the broker took leadership gets NOT_LEADER, and with several requests
            // in flight its retried batches can wedge the idempotent sequence: wait until every partition has
            // its leader (the broker may still refuse the first batch: producers to a fresh topic should keep
            // max.in.flight.requests.per.connection at 1)
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!hasLeaders(admin, topic, partitions)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic '" + topic + "' has no leaders after 30 s");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topic '" + topic + "'", e.getCause());
        }
    }

    private static boolean hasLeaders(Admin admin, String topic, int partitions)
            throws InterruptedException, ExecutionException {
        TopicDescription d;
        try {
            d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return false; // created, but its metadata has not reached the broker's cache yet
            }
            throw e;
        }
        return d != null
                && d.partitions().size() == partitions
                && d.partitions().stream()
                        .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
    }

    /** The offsets group {@code group} committed on {@code topic}, added up over its partitions. */
    public long committed(String group, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            long sum = 0;
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .entrySet()) {
                if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                    sum += e.getValue().offset();
                }
            }
            return sum;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the offsets of group '" + group + "'", e.getCause());
        }
    }

    /** The records of {@code topic} from its start, read until {@code count} arrived or 30 s passed. */
    public List<ConsumerRecord<byte[], byte[]>> read(String topic, int count) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", bootstrap()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic).forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    private Map<String, Object> props() {
        Map<String, Object> p = new HashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.resolve("log").toString());
        p.put("num.partitions", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("group.min.session.timeout.ms", "500");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        return p;
    }

    private void format() {
        try (PrintStream quiet = new PrintStream(PrintStream.nullOutputStream())) {
            String log = dir.resolve("log").toString();
            new Formatter()
                    .setPrintStream(quiet)
                    .setNodeId(1)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(Set.of(log))
                    .setMetadataLogDirectory(log)
                    .setControllerListenerName("CONTROLLER")
                    .setReleaseVersion(MetadataVersion.latestProduction())
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format the Kafka log dir " + dir, e);
        }
    }

    private void launch() {
        try {
            server = new KafkaRaftServer(new KafkaConfig(props()), Time.SYSTEM);
            server.startup();
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot start Kafka on port " + port, e);
        }
    }

    /** Stops the broker (its connections drop) and starts it again on the same ports with the same log. */
    public void restart() {
        stop();
        launch();
    }

    /** Stops the broker; {@link #restart()} starts it again. */
    public void stop() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
