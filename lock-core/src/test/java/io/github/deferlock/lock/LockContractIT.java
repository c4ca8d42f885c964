package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisDeployment;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The {@link LockContract} on each topology. */
final class LockContractIT {

    @Nested
    final class Standalone extends LockContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends LockContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }

        @Test
        void get_manyLocks_spreadOverAllThreeMastersWithoutCrossSlot() {
            RedisCluster cluster = deployment().redisCluster();
            try (RedisLocks locks = RedisLocks.builder(redis())
                    .defaultLease(Duration.ofSeconds(3))
                    .build()) {
                List<LockLease> leases = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    leases.add(locks.get("job-" + i).acquire(Duration.ofSeconds(1)));
                }
                Map<Integer, Integer> perMaster = new HashMap<>();
                for (int i = 0; i < 60; i++) {
                    RedisServer owner = cluster.masterFor("lock:{job-" + i + "}");
                    perMaster.merge(owner.port(), 1, Integer::sum);
                    assertThat(cluster.masterFor("lock:{job-" + i + "}:fence")).isSameAs(owner);
                }
                assertThat(perMaster).hasSize(3);
                assertThat(perMaster.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(5));
                for (RedisServer m : cluster.masters()) {
                    assertThat(cluster.keyCount(m)).isGreaterThanOrEqualTo(10); // lock + fence keys live here
                }
                leases.forEach(LockLease::close);
            }
        }
    }

    @Nested
    final class Sentinel extends LockContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
