package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;

/**
 * Issue 19: N separate JVMs, one thread each, loop acquire → hold ~1 ms → release on one key. Waiters of
 * different processes are served in arrival order (the Redis waiter queue), so every process gets about the
 * same share (Jain index) and acquisitions are granted in arrival order: an arrival ticket is taken with INCR
 * just before {@code lock()}, and an acquisition is overtaken by each one granted before it with a later
 * ticket. A process descheduled between its ticket and its request (2 busy cores: MONITOR showed 5 ms
 * between a niced worker's INCR and its request) queues late, so a few overtakes remain; on main a waiter was
 * overtaken by up to 120 (2 JVMs) and 246 (4 JVMs) later arrivals, 0.5 and 2.0 overtakes per acquisition.
 */
@ExtendWith(RedisExtension.class)
final class CrossProcessFairnessIT {
    private static final int SECONDS = 6;

    @ParameterizedTest(name = "{0} JVMs")
    @ValueSource(ints = {2, 4})
    void lock_nProcessesOneThreadEach_servedInArrivalOrderAndFairly(
            int processes, RedisServer server, RedisClient redis) {
        String host = server.hostAndPort().getHost();
        String port = Integer.toString(server.port());
        redis.del("fair:go", "fair:ticket", "fair:grants");
        List<JvmProcess> jvms = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                jvms.add(JvmProcess.start(
                        FairnessWorkerMain.class,
                        host,
                        port,
                        "fair-" + processes,
                        Integer.toString(i),
                        Integer.toString(SECONDS)));
            }
            for (JvmProcess jvm : jvms) {
                jvm.awaitLine("READY", Duration.ofSeconds(60));
            }
            redis.set("fair:go", "1");
            for (JvmProcess jvm : jvms) {
                jvm.awaitLine("DONE", Duration.ofSeconds(SECONDS + 61));
                assertThat(jvm.waitFor(Duration.ofSeconds(20))).isZero();
            }
        } finally {
            jvms.forEach(JvmProcess::close);
        }
        List<String> grants = redis.lrange("fair:grants", 0, -1);
        int n = grants.size();
        long[] tickets = new long[n];
        long[] perProcess = new long[processes];
        long[] waits = new long[n];
        for (int i = 0; i < n; i++) {
            String[] f = grants.get(i).split(":");
            tickets[i] = Long.parseLong(f[0]);
            perProcess[Integer.parseInt(f[1])]++;
            waits[i] = Long.parseLong(f[2]);
        }
        // an acquisition is overtaken by every acquisition granted before it that arrived (took its ticket) after it
        int[] overtakenBy = new int[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < i; j++) {
                if (tickets[j] > tickets[i]) {
                    overtakenBy[i]++;
                }
            }
            total += overtakenBy[i];
        }
        int maxOvertaken = Arrays.stream(overtakenBy).max().orElse(0);
        for (int i = 0; i < n; i++) {
            if (overtakenBy[i] == maxOvertaken && maxOvertaken > 0) {
                LoggerFactory.getLogger(CrossProcessFairnessIT.class)
                        .info(
                                "most overtaken: grant {} of {} ({}), granted before it: {}",
                                i,
                                n,
                                grants.get(i),
                                grants.subList(Math.max(0, i - maxOvertaken - 3), i));
                break;
            }
        }
        double sum = Arrays.stream(perProcess).sum();
        double squares =
                Arrays.stream(perProcess).mapToDouble(c -> (double) c * c).sum();
        double jain = sum * sum / (processes * squares);
        Arrays.sort(waits);
        long p99 = n == 0 ? 0 : waits[Math.max(0, (int) Math.ceil(n * 0.99) - 1)];
        LoggerFactory.getLogger(CrossProcessFairnessIT.class)
                .info(
                        "{} JVMs x 1 thread, {} s: {} acquisitions ({}/s), per process {}, Jain {}, p99 wait {} ms,"
                                + " overtakes total {} max {} per acquisition",
                        processes,
                        SECONDS,
                        n,
                        n / SECONDS,
                        Arrays.toString(perProcess),
                        String.format("%.3f", jain),
                        String.format("%.1f", p99 / 1000.0),
                        total,
                        maxOvertaken);
        assertThat(n).as("acquisitions").isGreaterThan(100);
        assertThat(jain)
                .as("Jain index over processes %s", Arrays.toString(perProcess))
                .isGreaterThanOrEqualTo(0.9);
        assertThat(maxOvertaken)
                .as("most later arrivals granted before one acquisition")
                .isLessThanOrEqualTo(25);
        assertThat((double) total / n).as("overtakes per acquisition").isLessThanOrEqualTo(0.05);
    }
}
