package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class TwoJvmMutualExclusionIT {

    @Test
    void lock_twoProcesses_racyCounterExact(RedisServer server, RedisClient redis) {
        String host = server.hostAndPort().getHost();
        String port = Integer.toString(server.port());
        try (JvmProcess a = JvmProcess.start(CounterWorker.class, host, port, "4", "15");
                JvmProcess b = JvmProcess.start(CounterWorker.class, host, port, "4", "15")) {
            a.awaitLine("DONE", Duration.ofSeconds(60));
            b.awaitLine("DONE", Duration.ofSeconds(60));
            assertThat(a.waitFor(Duration.ofSeconds(10))).isZero();
            assertThat(b.waitFor(Duration.ofSeconds(10))).isZero();
        }
        assertThat(redis.get("count")).isEqualTo(Integer.toString(2 * 4 * 15));
        assertThat(redis.exists("lock:{counter}")).isFalse();
    }
}
