package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The code of the README "Permits" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmePermitsExampleTest {

    /** Stands in for the reader's three render workers. */
    static final class Renderer {
        final List<Long> fencingTokens = new ArrayList<>();

        String render(String job, long fencingToken) {
            fencingTokens.add(fencingToken);
            return "rendered " + job;
        }
    }

    @Test
    void readmeSnippet_runs(RedisClient redis) {
        Renderer[] renderers = {new Renderer(), new Renderer(), new Renderer()};
        String job = "report-7";
        // README:start
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            // at most 3 renders at once across every process; cheap, no Redis call
            DistributedPermits renders = locks.permits("renders:tenant-7", 3);

            // waits up to 5 s in FIFO order; the watchdog renews the permit while held
            try (PermitLease permit = renders.acquire(Duration.ofSeconds(5))) {
                // slot() is in [0, 3): one of 3 resources; fencing tokens only grow
                renderers[permit.slot()].render(job, permit.fencingToken());
            }

            // or run a body under a permit; LockConflictException when none frees in time
            String done = renders.withPermit(Duration.ofSeconds(5), () -> "rendered " + job);
            // README:end
            assertThat(done).isEqualTo("rendered report-7");
        }
        assertThat(renderers[0].fencingTokens).hasSize(1);
        assertThat(redis.exists("lock:{renders:tenant-7}")).isFalse();
    }
}
