package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.deferlock.testing.Jdks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
final class VirtualThreadWorkerIT {

    @Test
    void virtualThreads_onJava21OrNewer_handleEveryJob(RedisServer server) {
        Optional<Path> java = Jdks.javaAtLeast(21);
        assumeTrue(java.isPresent(), "no JDK 21+ found");
        try (JvmProcess p = JvmProcess.startWith(
                java.get(),
                VirtualThreadWorkerMain.class,
                List.of("-Xmx256m"),
                server.host(),
                String.valueOf(server.port()))) {
            String line = p.awaitLine("HANDLED", Duration.ofSeconds(60));
            assertThat(line).isEqualTo("HANDLED 200 virtual=true running=true");
        }
    }

    @Test
    void virtualThreads_onJava17_failFastAtBuild(UnifiedJedis redis) {
        assumeTrue(Runtime.version().feature() < 21, "this JVM has virtual threads");
        DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class).build();
        assertThatThrownBy(() -> DelayQueueWorker.builder(q, job -> {})
                        .virtualThreads(true)
                        .build())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Java 21");
    }
}
