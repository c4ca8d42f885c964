package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisDeployment;
import org.junit.jupiter.api.Nested;

/** The {@link ScheduleContract} on each topology. */
final class ScheduleContractIT {

    @Nested
    final class Standalone extends ScheduleContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends ScheduleContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends ScheduleContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
