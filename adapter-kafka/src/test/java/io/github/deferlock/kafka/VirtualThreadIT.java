package io.github.deferlock.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.Jdks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** {@code virtualThreads(true)}: handlers run on virtual threads on Java 21+, and the build fails fast before. */
@ExtendWith(RedisExtension.class)
final class VirtualThreadIT {

    @Test
    void virtualThreads_onJava21OrNewer_handleEveryRecord(RedisServer server) {
        Optional<Path> java = Jdks.javaAtLeast(21);
        assumeTrue(java.isPresent(), "no JDK 21+ found");
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopic("vt", 4);
            try (KafkaProducer<byte[], byte[]> kp = Fixture.producer(broker.bootstrap())) {
                for (int i = 0; i < 200; i++) {
                    String key = "k" + (i % 20);
                    kp.send(new ProducerRecord<>(
                            "vt", key.getBytes(StandardCharsets.UTF_8), Fixture.json("m" + i, key)));
                }
                kp.flush();
            }
            try (JvmProcess p = JvmProcess.startWith(
                    java.get(),
                    VirtualThreadMain.class,
                    List.of("-Xmx256m"),
                    Integer.toString(server.port()),
                    broker.bootstrap(),
                    "vt",
                    "200")) {
                assertThat(p.awaitLine("HANDLED", Duration.ofSeconds(90))).isEqualTo("HANDLED 200 virtual=true");
            }
        }
    }

    @Test
    void virtualThreads_onJava17_failFastAtBuild(RedisClient redis) {
        assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads");
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            ConflictAwareHandler<Order> h = ConflictAwareHandler.builder("vt", Order.class, locks)
                    .key(Order::key)
                    .handler(o -> {})
                    .build();
            TopicConsumer.Builder<Order> b = TopicConsumer.builder(
                            Map.of("bootstrap.servers", "127.0.0.1:1", "group.id", "g"), "t", Order.class, h)
                    .virtualThreads(true);
            assertThatThrownBy(b::build)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("Java 21");
        }
    }
}
