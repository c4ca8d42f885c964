package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.JobState;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** {@link StandaloneDashboard#main} in its own JVM: the README's command line. */
@ExtendWith(RedisExtension.class)
final class StandaloneDashboardIT {

    @Test
    void main_servesTheDashboardOfTheGivenRedis(RedisServer server, UnifiedJedis redis) throws Exception {
        try (Workload w = Workload.write(redis);
                JvmProcess dashboard = JvmProcess.start(
                        StandaloneDashboard.class, "--redis", "redis://127.0.0.1:" + server.port(), "--port", "0")) {
            String started = dashboard.awaitLine("deferlock dashboard: ", Duration.ofSeconds(60));
            URI page = URI.create(started.substring(started.indexOf("-> ") + 3));

            HttpResponse<String> queues = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(page.resolve("api/queues")).build(),
                            HttpResponse.BodyHandlers.ofString());

            assertThat(started).contains("read-only");
            assertThat(page.getHost()).isEqualTo("127.0.0.1");
            assertThat(queues.statusCode()).isEqualTo(200);
            assertThat(queues.body())
                    .contains("\"name\":\"orders\"")
                    .contains("\"dead\":" + w.orders.size(JobState.DEAD));
        }
    }

    @Test
    void main_badOptions_exit2WithAMessage() {
        try (JvmProcess dashboard = JvmProcess.start(StandaloneDashboard.class, "--port", "1")) {
            assertThat(dashboard.awaitLine(l -> l.contains("--redis is required"), Duration.ofSeconds(60)))
                    .isEqualTo("deferlock-dashboard: --redis is required, e.g. --redis redis://127.0.0.1:6379");
            assertThat(dashboard.waitFor(Duration.ofSeconds(60))).isEqualTo(2);
        }
    }

    @Test
    void main_help_exits0() {
        try (JvmProcess dashboard = JvmProcess.start(StandaloneDashboard.class, "--help")) {
            assertThat(dashboard.awaitLine("Usage: java -jar", Duration.ofSeconds(60)))
                    .isNotEmpty();
            assertThat(dashboard.waitFor(Duration.ofSeconds(60))).isZero();
        }
    }
}
