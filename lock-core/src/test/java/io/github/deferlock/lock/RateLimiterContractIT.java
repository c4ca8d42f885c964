package io.github.deferlock.lock;

import io.github.deferlock.testing.RedisDeployment;
import org.junit.jupiter.api.Nested;

/** The {@link RateLimiterContract} on each topology. */
final class RateLimiterContractIT {

    @Nested
    final class Standalone extends RateLimiterContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends RateLimiterContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends RateLimiterContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
