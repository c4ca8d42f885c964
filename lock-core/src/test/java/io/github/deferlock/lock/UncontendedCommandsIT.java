package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Issue 19: the waiter queue costs an uncontended acquire/release cycle nothing. Redis's command statistics
 * (which count the commands a script runs as well as the script call) over 100 {@code lock()}/{@code unlock()}
 * cycles: 2 {@code EVALSHA} and 8 commands inside them per cycle, as before the queue (main measured the
 * same 10: SET NX, TIME, GET, SET, INCRBY in acquire.lua; GET, DEL, SET in release.lua).
 */
@ExtendWith(RedisExtension.class)
final class UncontendedCommandsIT {
    private static final int CYCLES = 100;

    /**
     * Our own INFO, and what a new pooled connection sends (Jedis's CLIENT SETINFO; 6.2 refuses it). Matched on
     * the command before any {@code |}: Redis 7 and Valkey count subcommands as {@code client|setinfo}.
     */
    private static final java.util.Set<String> CONNECTION_SETUP = java.util.Set.of("info", "client", "hello");

    private static Map<String, Long> calls(RedisServer server) {
        Map<String, Long> calls = new TreeMap<>();
        try (Jedis jedis = server.newConnection()) {
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    String c = line.substring(line.indexOf("calls=") + 6);
                    calls.put(line.substring(8, line.indexOf(':')), Long.parseLong(c.substring(0, c.indexOf(','))));
                }
            }
        }
        return calls;
    }

    @Test
    void lockUnlock_uncontended_tenCommandsPerCycleAsBeforeTheQueue(RedisServer server, RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("alone");
            lock.lock(); // scripts loaded
            lock.unlock();
            Map<String, Long> before = calls(server);
            for (int i = 0; i < CYCLES; i++) {
                lock.lock();
                lock.unlock();
            }
            Map<String, Long> after = calls(server);
            Map<String, Long> perCycle = new TreeMap<>();
            long total = 0;
            for (Map.Entry<String, Long> e : after.entrySet()) {
                long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                if (d > 0 && !CONNECTION_SETUP.contains(e.getKey().split("\\|")[0])) {
                    perCycle.put(e.getKey(), d);
                    total += d;
                }
            }
            LoggerFactory.getLogger(UncontendedCommandsIT.class)
                    .info(
                            "{} uncontended lock/unlock cycles: {} commands ({} per cycle): {}",
                            CYCLES,
                            total,
                            (double) total / CYCLES,
                            perCycle);
            assertThat(perCycle.get("evalsha")).isEqualTo(2L * CYCLES);
            assertThat(total).as("commands per 100 cycles: %s", perCycle).isLessThanOrEqualTo(10L * CYCLES);
        }
    }
}
