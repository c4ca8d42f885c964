package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The accuracy promise of a rate limiter (docs/locks.md, "Rate limits"): 4 processes hammer one limiter of
 * 200/s (burst 10); every half-open 1 s window of server grant times holds at most rate + burst - 1 grants, and
 * the sustained throughput is at least 95 % of the rate.
 */
@ExtendWith(RedisExtension.class)
final class RateLimiterIT {
    private static final int RATE = 200;
    private static final int BURST = 10; // RateLimit.of's default for 200: 200 / 20
    private static final long RUN_MILLIS = 3_000;

    @Test
    void tryAcquire_fourProcessesHammering_everyWindowWithinBoundAndThroughputNearRate(
            RedisServer server, RedisClient redis) {
        assertThat(RateLimit.of(RATE, Duration.ofSeconds(1)).burst()).isEqualTo(BURST);
        String host = server.hostAndPort().getHost();
        String port = Integer.toString(server.port());
        List<JvmProcess> children = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                children.add(JvmProcess.start(
                        RateWorkerMain.class, host, port, Integer.toString(RATE), Long.toString(RUN_MILLIS)));
            }
            for (JvmProcess child : children) {
                child.awaitLine("READY", Duration.ofSeconds(60));
            }
            redis.set("go", "1");
            for (JvmProcess child : children) {
                child.awaitLine("DONE", Duration.ofSeconds(60));
                assertThat(child.waitFor(Duration.ofSeconds(10))).isZero();
            }
        } finally {
            children.forEach(JvmProcess::close);
        }
        long[] grants = redis.lrange("grants", 0, -1).stream()
                .mapToLong(Long::parseLong)
                .sorted()
                .toArray();
        assertThat(grants.length).as("grants").isGreaterThan(RATE);

        int worst = 0;
        int j = 0;
        for (int i = 0; i < grants.length; i++) {
            while (j < grants.length && grants[j] < grants[i] + 1_000_000) {
                j++;
            }
            worst = Math.max(worst, j - i);
        }
        assertThat(worst).as("most grants in a 1 s window").isLessThanOrEqualTo(RATE + BURST - 1);

        double spanSeconds = (grants[grants.length - 1] - grants[0]) / 1e6;
        double throughput = (grants.length - BURST) / spanSeconds;
        assertThat(spanSeconds).as("span of the grants").isGreaterThan(2.0);
        assertThat(throughput).as("grants per second").isGreaterThanOrEqualTo(0.95 * RATE);
        System.out.printf(
                "rate limiter 200/s, 4 processes: %d grants in %.3f s, %.1f/s, worst 1 s window %d%n",
                grants.length, spanSeconds, throughput, worst);
    }
}
