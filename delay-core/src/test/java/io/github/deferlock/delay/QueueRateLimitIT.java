package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisDeployment;
import org.junit.jupiter.api.Nested;

/** The {@link QueueRateLimitContract} on a standalone server, a cluster and a Sentinel group. */
final class QueueRateLimitIT {

    @Nested
    final class Standalone extends QueueRateLimitContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends QueueRateLimitContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends QueueRateLimitContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
