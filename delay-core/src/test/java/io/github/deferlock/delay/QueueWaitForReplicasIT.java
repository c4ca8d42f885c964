package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.deferlock.testing.RedisSentinelGroup;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link DelayQueue.Builder#waitForReplicas}: {@code WAIT} pipelined with the enqueue and ack scripts on a
 * Sentinel group (one primary, two replicas).
 */
final class QueueWaitForReplicasIT {
    private static final Duration TIMEOUT = Duration.ofMillis(300);

    private static RedisSentinelGroup group;
    private static UnifiedJedis redis;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start();
        redis = group.newClient();
    }

    @AfterAll
    static void stopGroup() {
        if (redis != null) {
            redis.close();
        }
        if (group != null) {
            group.close();
        }
    }

    private static DelayQueue<Msg> queue(String name, Duration timeout) {
        return DelayQueue.builder(redis, name, Msg.class)
                .waitForReplicas(2, timeout)
                .build();
    }

    @Test
    void enqueueAndAck_replicasAcknowledge_succeed() {
        // WAIT returns as soon as both replicas acknowledge; the long timeout only covers a replica still syncing
        DelayQueue<Msg> queue = queue("wait-ok", Duration.ofSeconds(5));

        EnqueueResult one = queue.enqueue("a", new Msg("a", 1), Duration.ZERO);
        List<EnqueueResult> batch = queue.enqueueAll(List.of(new Msg("b", 2), new Msg("c", 3)), Duration.ZERO);

        assertThat(one.duplicate()).isFalse();
        assertThat(batch).hasSize(2);
        List<Job<Msg>> jobs = queue.claim(10);
        assertThat(jobs).hasSize(3);
        for (Job<Msg> job : jobs) {
            assertThat(queue.ack(job)).isTrue();
        }
        assertThat(queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT)).isZero();
    }

    @Test
    void enqueueAndAck_replicasPaused_throwNamingCountWithinTimeoutAndWriteIsKept() {
        DelayQueue<Msg> queue = queue("wait-paused", TIMEOUT);
        DelayQueue<Msg> plain =
                DelayQueue.builder(redis, "wait-paused", Msg.class).build();
        plain.enqueue("acked-later", new Msg("x", 0), Duration.ZERO);
        Job<Msg> claimed = plain.claim(1).get(0);
        List<RedisServer> replicas = group.replicas();
        replicas.forEach(RedisServer::pause);
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> queue.enqueue("j1", new Msg("j", 1), Duration.ZERO))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("acknowledged by 0 of 2 replicas")
                    .hasMessageContaining("job 'j1' is stored on the primary");
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(elapsedMs).as("time to fail (ms)").isLessThan(TIMEOUT.toMillis() + 1_000);
            assertThat(queue.get("j1")).as("the job is kept").isPresent();

            assertThatThrownBy(() -> queue.enqueueAll(List.of(NewJob.of("j2", new Msg("j", 2), Duration.ZERO))))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("0 of 2 replicas")
                    .hasMessageContaining("every job of the batch is stored on the primary");
            assertThat(queue.get("j2")).isPresent();

            assertThatThrownBy(() -> queue.ack(claimed))
                    .isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("0 of 2 replicas")
                    .hasMessageContaining("is acked (deleted) on the primary");
            assertThat(queue.get("acked-later")).isEmpty();
        } finally {
            replicas.forEach(RedisServer::resume);
        }
        // the caller's retry with the same id is idempotent and now reaches the replicas
        DelayQueue<Msg> patient = queue("wait-paused", Duration.ofSeconds(5)); // the resumed replicas catch up
        assertThat(patient.enqueue("j1", new Msg("j", 1), Duration.ZERO).duplicate())
                .isTrue();
    }
}
