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
 * Issues 19 and 30: what an uncontended acquire/release cycle costs Redis. Redis's command statistics (which
 * count the commands a script runs as well as the script call) over 1,000 {@code lock()}/{@code unlock()}
 * cycles: 2 {@code EVALSHA} and 6 commands inside them per cycle (SET NX, TIME, the counter's SET ... GET in
 * acquire.lua; GET, DEL, SET in release.lua). Before issue 30 there were 8 inside (GET, SET, INCRBY where the
 * SET ... GET is); the waiter queue (issue 19) added none. Also logs the Redis CPU per cycle the scripts took
 * (their {@code usec}: a figure of the machine, not asserted).
 */
@ExtendWith(RedisExtension.class)
final class UncontendedCommandsIT {
    private static final int CYCLES = 1000;

    /**
     * Our own INFO, and what a new pooled connection sends (Jedis's CLIENT SETINFO; 6.2 refuses it). Matched on
     * the command before any {@code |}: Redis 7 and Valkey count subcommands as {@code client|setinfo}.
     */
    private static final java.util.Set<String> CONNECTION_SETUP = java.util.Set.of("info", "client", "hello");

    /** Per command: {calls, usec} from INFO commandstats. */
    private static Map<String, long[]> stats(RedisServer server) {
        Map<String, long[]> stats = new TreeMap<>();
        try (Jedis jedis = server.newConnection()) {
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    stats.put(
                            line.substring(8, line.indexOf(':')),
                            new long[] {field(line, "calls"), field(line, "usec")});
                }
            }
        }
        return stats;
    }

    private static long field(String line, String name) {
        String rest = line.substring(line.indexOf(name + "=") + name.length() + 1);
        int end = rest.indexOf(',');
        return Long.parseLong(end < 0 ? rest : rest.substring(0, end));
    }

    @Test
    void lockUnlock_uncontended_eightCommandsPerCycle(RedisServer server, RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("alone");
            lock.lock(); // scripts loaded
            lock.unlock();
            Map<String, long[]> before = stats(server);
            for (int i = 0; i < CYCLES; i++) {
                lock.lock();
                lock.unlock();
            }
            Map<String, long[]> after = stats(server);
            Map<String, Long> perCycle = new TreeMap<>();
            long total = 0;
            long allMicros = 0;
            for (Map.Entry<String, long[]> e : after.entrySet()) {
                long[] was = before.getOrDefault(e.getKey(), new long[2]);
                long d = e.getValue()[0] - was[0];
                if (d > 0 && !CONNECTION_SETUP.contains(e.getKey().split("\\|")[0])) {
                    perCycle.put(e.getKey(), d);
                    total += d;
                    allMicros += e.getValue()[1] - was[1];
                }
            }
            // a script's usec covers the commands it runs (they are also counted under their own names)
            long scriptMicros = after.get("evalsha")[1] - before.getOrDefault("evalsha", new long[2])[1];
            LoggerFactory.getLogger(UncontendedCommandsIT.class)
                    .info(
                            "{} uncontended lock/unlock cycles: {} commands ({} per cycle), Redis CPU per cycle: {} us"
                                    + " in the scripts, {} us summed over commandstats (the scripts' commands counted"
                                    + " twice): {}",
                            CYCLES,
                            total,
                            (double) total / CYCLES,
                            (double) scriptMicros / CYCLES,
                            (double) allMicros / CYCLES,
                            perCycle);
            assertThat(perCycle.get("evalsha")).isEqualTo(2L * CYCLES);
            assertThat(total).as("commands per %s cycles: %s", CYCLES, perCycle).isLessThanOrEqualTo(8L * CYCLES);
        }
    }
}
