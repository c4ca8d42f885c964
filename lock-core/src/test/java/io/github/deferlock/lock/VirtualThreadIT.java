package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.Jdks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class VirtualThreadIT {

    @Test
    void acquire_1000VirtualThreadsOn10Keys_mutuallyExclusive(RedisServer server, RedisClient redis) {
        Optional<Path> java = Jdks.javaAtLeast(21);
        Assumptions.assumeTrue(java.isPresent(), "no JDK 21+ found for the virtual-thread test");
        try (JvmProcess jvm = JvmProcess.startWith(
                java.get(),
                VirtualThreadWorker.class,
                List.of("-Xmx256m"),
                server.hostAndPort().getHost(),
                Integer.toString(server.port()))) {
            String result = jvm.awaitLine("RESULT", Duration.ofSeconds(90));
            assertThat(result).isEqualTo("RESULT 1000 0 virtual=true");
            assertThat(jvm.waitFor(Duration.ofSeconds(10))).isZero();
        }
        for (int k = 0; k < 10; k++) {
            assertThat(redis.exists("lock:{vt-" + k + "}")).isFalse();
            // the counter exists; its value follows the server time (tokens survive data loss), so it no
            // longer counts acquisitions
            assertThat(Long.parseLong(redis.get("lock:{vt-" + k + "}:fence"))).isPositive();
        }
    }
}
