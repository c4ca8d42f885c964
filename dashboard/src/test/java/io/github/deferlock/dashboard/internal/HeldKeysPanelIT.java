package io.github.deferlock.dashboard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.redis.internal.Registry;
import io.github.deferlock.redis.internal.RegistryBeacon;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link HeldKeysPanel} on a real Redis: the held-count hash is read only for queues whose stats count held jobs,
 * for at most the queues per tick (taking turns), at most {@value HeldKeysPanel#MAX_KEYS} keys each; views make
 * no call. Counted with {@code INFO commandstats}.
 */
@ExtendWith(RedisExtension.class)
final class HeldKeysPanelIT {

    /** Registers queue {@code name}; with {@code keys} > 0, holds one job of each of that many keys at limit 1. */
    private static DelayQueue<String> queue(UnifiedJedis redis, String name, int keys) {
        DelayQueue<String> q = DelayQueue.builder(redis, name, String.class)
                .visibilityTimeout(Duration.ofMinutes(10))
                .build();
        q.enqueue("plain");
        if (keys > 0) {
            q.concurrencyKeys().limit(1);
            for (int k = 0; k < keys; k++) {
                for (int i = 0; i < 2 + (k == 0 ? 1 : 0); i++) { // key 0 holds 2 jobs, the others 1
                    q.enqueueJob(
                            NewJob.of("k" + k + "-" + i, "x", Duration.ZERO).withConcurrencyKey("key-" + k));
                }
            }
            q.claim(100);
        }
        new RegistryBeacon(Registry.Kind.QUEUE).touch(redis, name);
        return q;
    }

    private static long calls(Jedis admin, String command) {
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }

    @Test
    void tick_readsOnlyQueuesWithHeldJobs_atMostTheBudgetPerTick_inTurns(RedisServer server, UnifiedJedis redis) {
        queue(redis, "idle", 0);
        DelayQueue<String> many = queue(redis, "many", 12);
        queue(redis, "two", 2);
        Inspector inspector = Inspector.builder(redis).build();
        QueueOverview overview = new QueueOverview(inspector);
        AtomicLong now = new AtomicLong(1_000);
        HeldKeysPanel panel = new HeldKeysPanel(inspector, 1, now::get);

        try (Jedis admin = server.newConnection()) {
            List<QueueOverview.Row> rows = overview.read().queues();
            assertThat(rows).extracting(r -> r.stats().held()).containsExactly(0L, 13L, 3L); // idle, many, two
            long before = calls(admin, "hgetall");

            assertThat(panel.tick(rows)).isEqualTo(1);
            assertThat(calls(admin, "hgetall") - before)
                    .as("one queue per tick")
                    .isEqualTo(1);
            assertThat(panel.view("many").keys())
                    .hasSize(HeldKeysPanel.MAX_KEYS)
                    .first()
                    .isEqualTo(new Inspector.HeldKey("key-0", 2, 1, 1));
            assertThat(panel.view("many").readAtMillis()).isEqualTo(1_000);
            assertThat(panel.view("two")).as("its turn is next").isNull();
            assertThat(panel.view("idle")).isNull();

            now.set(2_000);
            assertThat(panel.tick(rows)).isEqualTo(1);
            assertThat(panel.view("two").keys())
                    .containsExactly(new Inspector.HeldKey("key-0", 2, 1, 1), new Inspector.HeldKey("key-1", 1, 1, 1));
            assertThat(panel.view("many").readAtMillis())
                    .as("kept until its next turn")
                    .isEqualTo(1_000);
            now.set(3_000);
            panel.tick(rows);
            assertThat(panel.view("many").readAtMillis()).isEqualTo(3_000);
            assertThat(calls(admin, "hgetall") - before)
                    .as("never for the queue with nothing held")
                    .isEqualTo(3);

            long views = calls(admin, "hgetall");
            for (int i = 0; i < 50; i++) {
                panel.view("many");
            }
            assertThat(calls(admin, "hgetall")).as("views read memory").isEqualTo(views);

            for (String id : List.of("k0-1", "k0-2")) {
                many.cancel(id);
            }
            for (int k = 1; k < 12; k++) {
                many.cancel("k" + k + "-1");
            }
            List<QueueOverview.Row> after = overview.read().queues();
            assertThat(after).extracting(r -> r.stats().held()).containsExactly(0L, 0L, 3L);
            panel.tick(after);
            assertThat(panel.view("many"))
                    .as("nothing held any more: forgotten")
                    .isNull();
        }
    }
}
