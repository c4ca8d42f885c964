package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.lock.RateLimit;
import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The {@link LimitStrategiesContract} on each topology; input checks and the README snippet on the standalone
 * server.
 */
final class LimitStrategiesIT {
    private final AtomicInteger renders = new AtomicInteger();
    private final AtomicInteger charges = new AtomicInteger();

    private String render(String tenant) {
        renders.incrementAndGet();
        return "page of " + tenant;
    }

    private String charge() {
        charges.incrementAndGet();
        return "receipt";
    }

    /** The README's snippet, quoted line for line (its lines fit the formatter's width at this depth). */
    private void readmeSnippet(LockRunner runner) {
        String tenant = "acme";
        runner.withPermit("tenant:" + tenant, 3, OnConflict.SLEEP_RETRY, () -> render(tenant));
        runner.withRateLimit("payments", RateLimit.of(100, Duration.ofSeconds(1)), OnConflict.THROW, () -> charge());
    }

    @Nested
    final class Standalone extends LimitStrategiesContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }

        @Test
        void readmeAndDocsSnippet_permitsAndRateLimit() {
            readmeSnippet(LockRunner.builder(mine()).build());
            assertThat(renders.get()).isEqualTo(1);
            assertThat(charges.get()).isEqualTo(1);
        }

        @Test
        void builder_refusesBadLimits() {
            assertThatThrownBy(() -> ConflictAwareHandler.builder("bad", Msg.class, mine())
                            .permits(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0");
            assertThatThrownBy(() -> ConflictAwareHandler.builder("bad2", Msg.class, mine())
                            .rateLimit(RateLimit.of(1, Duration.ofSeconds(1)))
                            .rateLimit("x", RateLimit.of(1, Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    final class Cluster extends LimitStrategiesContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends LimitStrategiesContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
