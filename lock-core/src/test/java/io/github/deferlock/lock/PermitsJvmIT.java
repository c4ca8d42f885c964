package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.RedisClient;

/**
 * Issue 32's proof for permits: limit 3 across 4 child JVMs x 4 threads, one child SIGSTOPped past its lease (2 s) and
 * one SIGKILLed while working. Measured by a {@link SlotResource} in a separate Redis: never more than 3
 * occupants at once, every slot in [0, 3), fencing tokens increasing per slot (a stale one is rejected), and a
 * slot taken over from a holder that had not left it only when that holder was the paused or the killed child.
 */
final class PermitsJvmIT {
    private static final Logger LOG = LoggerFactory.getLogger(PermitsJvmIT.class);

    @Test
    void permits_limitThreeFourJvmsWithPauseAndKill_neverMoreThanThreeAndTokensIncreasePerSlot() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisServer resourceServer = RedisServer.start();
                RedisClient redis = server.newClient();
                RedisClient resourceRedis = resourceServer.newClient()) {
            String host = server.host();
            List<JvmProcess> children = new ArrayList<>();
            try {
                for (int c = 0; c < 4; c++) {
                    children.add(JvmProcess.start(
                            PermitsWorkerMain.class,
                            host,
                            Integer.toString(server.port()),
                            resourceServer.host(),
                            Integer.toString(resourceServer.port()),
                            "c" + c,
                            "4",
                            c < 2 ? "300" : "40")); // the children to fault hold longer: they are caught holding
                }
                for (JvmProcess child : children) {
                    child.awaitLine("READY", Duration.ofSeconds(30));
                }
                SlotResource resource = new SlotResource(resourceRedis, 3);
                JvmProcess paused = children.get(0);
                JvmProcess killed = children.get(1);
                await().alias("c0 holds a slot").atMost(Duration.ofSeconds(20)).until(() -> resource.occupiedBy("c0"));
                paused.pause();
                await().alias("c1 holds a slot").atMost(Duration.ofSeconds(20)).until(() -> resource.occupiedBy("c1"));
                killed.kill();
                Thread.sleep(700);
                Thread.sleep(2_800); // paused about 3.5 s: past its 2 s lease
                paused.resume();
                Thread.sleep(2_000); // the resumed child finds its permits gone
                resourceRedis.set("stop", "1");
                List<String> done = new ArrayList<>();
                for (JvmProcess child : List.of(paused, children.get(2), children.get(3))) {
                    done.add(child.awaitLine("DONE", Duration.ofSeconds(30)));
                }
                Map<String, String> counters = new SlotResource(resourceRedis, 3).counters();
                LOG.info("children: {}; resource: {}", done, counters);

                assertThat(SlotResource.count(counters, "badSlot")).isZero();
                // the faults hit holders: their slots were taken over after their lease, the paused one's
                // writes after it resumed were refused as stale
                assertThat(SlotResource.count(counters, "takeover:c0")).isPositive();
                assertThat(SlotResource.count(counters, "stale:c0")).isPositive();
                assertThat(SlotResource.count(counters, "takeover:c1")).isPositive();
                assertThat(SlotResource.count(counters, "maxInside")).isBetween(1L, 3L);
                for (String healthy : List.of("c2", "c3")) {
                    assertThat(SlotResource.count(counters, "takeover:" + healthy))
                            .as("a slot taken from healthy child " + healthy + " while it held it")
                            .isZero();
                    assertThat(SlotResource.count(counters, "stale:" + healthy))
                            .as("stale token of healthy child " + healthy)
                            .isZero();
                }
                for (int slot = 0; slot < 3; slot++) {
                    assertThat(SlotResource.count(counters, "entered:" + slot)).isPositive();
                }
                assertThat(SlotResource.count(counters, "entered")).isGreaterThan(30);
                assertThat(done.get(1)).contains("lost=0", "errors=0");
                assertThat(done.get(2)).contains("lost=0", "errors=0");
                // the killed child's permits ran out with their lease: nothing is left held
                try (RedisLocks locks = RedisLocks.builder(redis).build()) {
                    assertThat(locks.permits("jobs", 3).holders()).isEmpty();
                }
            } finally {
                children.forEach(c -> LOG.info("{}: {}", c, String.join(" | ", c.output())));
                children.forEach(JvmProcess::close);
            }
        }
    }
}
