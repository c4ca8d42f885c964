package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisDeployment;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The {@link QueueContract} on each topology. */
final class QueueContractIT {

    @Nested
    final class Standalone extends QueueContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends QueueContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }

        @Test
        void manyQueues_spreadOverAllThreeMastersWithoutCrossSlot() {
            RedisCluster cluster = deployment().redisCluster();
            Map<Integer, Integer> perMaster = new HashMap<>();
            for (int i = 0; i < 60; i++) {
                String name = "tenant-" + i;
                DelayQueue<Msg> q = DelayQueue.builder(redis(), name, Msg.class).build();
                q.enqueueAll(List.of(
                        NewJob.of(new Msg("a", i), Duration.ZERO), NewJob.of(new Msg("b", i), Duration.ofMinutes(1))));
                Job<Msg> job = q.claim(1).get(0);
                assertThat(q.nack(job, "once", Duration.ZERO)).isTrue();
                assertThat(q.deadLetter(q.claim(1).get(0), "dead")).isTrue();

                String prefix = QueueKeys.prefix(name);
                RedisServer owner = cluster.masterFor(prefix + "due");
                for (String k : List.of("inflight", "jobs", "dead", "errors", "seq", "stats", "paused", "wake")) {
                    assertThat(cluster.masterFor(prefix + k)).as(prefix + k).isSameAs(owner);
                }
                perMaster.merge(owner.port(), 1, Integer::sum);
            }
            assertThat(perMaster).hasSize(3);
            assertThat(perMaster.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(5));
            for (RedisServer m : cluster.masters()) {
                assertThat(cluster.keyCount(m)).isGreaterThanOrEqualTo(5 * 4); // due, jobs, dead, errors, seq
            }
        }
    }

    @Nested
    final class Sentinel extends QueueContract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }
}
