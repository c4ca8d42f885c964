package io.github.deferlock.dashboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.testing.RedisExtension;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** {@link LockPanel} on a fake clock and a real Redis: the budget per tick, the watch limit, idle prefixes. */
@ExtendWith(RedisExtension.class)
final class LockPanelIT {

    private static void fill(UnifiedJedis redis, int keys) {
        String[] kv = new String[2 * keys];
        for (int i = 0; i < keys; i++) {
            kv[2 * i] = "unrelated:" + i;
            kv[2 * i + 1] = "x";
        }
        redis.mset(kv);
    }

    @Test
    void tick_spendsAtMostTheBudgetOverAllPrefixes_andViewsMakeNoCall(UnifiedJedis redis) {
        fill(redis, 30_000);
        redis.set("lock:{a}", "token");
        AtomicLong now = new AtomicLong(1_000_000);
        LockPanel panel = new LockPanel(Inspector.builder(redis).build(), 6, 200, 4, 60_000, now::get);

        assertThat(panel.view("lock:").page()).isNull();
        panel.view("x:");
        panel.view("y:");
        int ticks = 0;
        while (panel.view("lock:").page() == null) {
            assertThat(panel.tick()).isBetween(1L, 6L);
            ticks++;
        }

        assertThat(ticks).as("30,000 keys take several ticks of 2 calls").isGreaterThan(2);
        assertThat(panel.view("lock:").page().locks()).hasSize(1);
        assertThat(panel.view("lock:").scanCalls()).isGreaterThan(2);
    }

    @Test
    void prefixesBeyondTheLimitAreRefused_untilOneGoesIdle(UnifiedJedis redis) {
        AtomicLong now = new AtomicLong(1_000_000);
        LockPanel panel = new LockPanel(Inspector.builder(redis).build(), 10, 200, 2, 60_000, now::get);
        panel.view("a:");
        panel.view("b:");

        assertThatThrownBy(() -> panel.view("c:")).isInstanceOf(HttpError.class).hasMessageContaining("at most 2");
        assertThatThrownBy(() -> panel.view("{")).isInstanceOf(IllegalArgumentException.class);
        now.addAndGet(30_000);
        panel.view("a:");
        now.addAndGet(40_000); // b: idle for 70 s
        assertThat(panel.view("c:").page()).isNull();
        now.addAndGet(120_000); // nobody looks: no work
        assertThat(panel.tick()).isZero();
    }
}
