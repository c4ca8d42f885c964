package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.UnifiedJedis;

/**
 * The locks panel on a Redis full of unrelated keys (issue 28): readers, however many and however fast, add no
 * {@code SCAN} work; the dashboard's own walk spends at most its budget per refresh interval. Counted with
 * {@code INFO commandstats}, not timed.
 */
@ExtendWith(RedisExtension.class)
final class LocksCostIT {

    private static final int UNRELATED_KEYS = 200_000;
    private static final long REFRESH_MS = 500; // RunningDashboard's refresh interval

    @Test
    void locksReads_onManyUnrelatedKeys_costNoMoreScanThanTheBudgetPerRefresh(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (Workload w = Workload.write(redis);
                Jedis admin = server.newConnection();
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            Pipeline fill = admin.pipelined();
            for (int i = 0; i < UNRELATED_KEYS; i += 1000) {
                String[] kv = new String[2000];
                for (int j = 0; j < 1000; j++) {
                    kv[2 * j] = "unrelated:" + (i + j);
                    kv[2 * j + 1] = "x";
                }
                fill.mset(kv);
            }
            fill.sync();
            assertThat(admin.dbSize()).isGreaterThanOrEqualTo(UNRELATED_KEYS);
            long before = scanCalls(admin);
            long start = System.nanoTime();

            for (int i = 0; i < 30; i++) { // a reader polling far faster than the page does
                assertThat(d.get("api/locks?prefix=lock:").statusCode()).isEqualTo(200);
                assertThat(d.get("api/locks?prefix=nothing:").statusCode()).isEqualTo(200);
            }

            long scans = scanCalls(admin) - before;
            long refreshes = Duration.ofNanos(System.nanoTime() - start).toMillis() / REFRESH_MS + 2;
            assertThat(scans)
                    .as("SCAN calls over %d refresh intervals", refreshes)
                    .isLessThanOrEqualTo(DashboardServlet.Builder.DEFAULT_LOCK_SCAN_BUDGET * refreshes);

            JsonNode page = await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> d.getJson("api/locks?prefix=lock:"), p -> p.get("complete")
                            .asBoolean());
            assertThat(page.get("locks")).hasSize(1);
            assertThat(page.get("locks").get(0).get("name").asText()).isEqualTo(Workload.LOCK);
            assertThat(page.get("locks").get(0).get("fencingToken").asLong())
                    .isGreaterThanOrEqualTo(w.lease.fencingToken());
            assertThat(page.get("scannedAt").asLong()).isPositive();
        }
    }

    @Test
    void tooManyPrefixes_areRefused_notScanned(UnifiedJedis redis) {
        try (RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            HttpResponse<String> last = null;
            for (int i = 0; i <= DashboardServlet.Builder.MAX_WATCHED_LOCK_PREFIXES; i++) {
                last = d.get("api/locks?prefix=p" + i + ":");
            }
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(d.parse(last.body()).get("error").asText()).contains("lock prefixes");
        }
    }

    private static long scanCalls(Jedis admin) {
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_scan:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }
}
