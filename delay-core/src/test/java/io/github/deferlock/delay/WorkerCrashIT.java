package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
final class WorkerCrashIT {

    /**
     * Q2: a worker JVM SIGKILLed while its handler runs leaves the job in flight; it is redelivered (attempt 2)
     * no earlier than its visibility deadline: one visibility timeout after the claim, or after the dead
     * worker's last renewal (while it lived it kept the claim).
     */
    @Test
    void crash_workerJvmKilledBetweenClaimAndAck_jobRedeliveredOnceAfterVisibilityTimeout(
            RedisServer server, UnifiedJedis redis) {
        Duration visibility = Duration.ofMillis(1500);
        DelayQueue<Msg> q = DelayQueue.builder(redis, "crash", Msg.class)
                .visibilityTimeout(visibility)
                .build();
        String id = q.enqueue(new Msg("survive me", 1)).id();
        Instant claimDeadline;
        Instant lastDeadline;
        try (JvmProcess crasher = JvmProcess.start(
                CrashingWorkerMain.class,
                server.host(),
                String.valueOf(server.port()),
                "crash",
                String.valueOf(visibility.toMillis()))) {
            assertThat(crasher.awaitLine("CLAIMED", Duration.ofSeconds(60))).isEqualTo("CLAIMED " + id + " 1");
            // the claim's deadline, set by the server at claim time: claim + visibility
            claimDeadline = deadline(q, id);
            // while it lives, the worker renews the claim of the job its handler runs
            await().atMost(Duration.ofSeconds(20)).until(() -> deadline(q, id).isAfter(claimDeadline));
            crasher.kill();
            assertThat(crasher.isAlive()).isFalse();
        }
        lastDeadline = deadline(q, id);
        assertThat(q.get(id).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);

        List<Job<Msg>> deliveries = new CopyOnWriteArrayList<>();
        List<Instant> deliveredAt = new CopyOnWriteArrayList<>();
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                    deliveredAt.add(ServerTime.now(redis));
                    deliveries.add(job);
                })
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> q.get(id).isEmpty());
            assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(deliveries).hasSize(1);
        assertThat(deliveries.get(0).id()).isEqualTo(id);
        assertThat(deliveries.get(0).attempts()).isEqualTo(2);
        assertThat(deliveries.get(0).payload()).isEqualTo(new Msg("survive me", 1));
        assertThat(lastDeadline).isAfterOrEqualTo(claimDeadline);
        assertThat(deliveredAt.get(0))
                .as("redelivered no earlier than the visibility timeout after the claim and the last renewal")
                .isAfterOrEqualTo(lastDeadline);
    }

    private static Instant deadline(DelayQueue<Msg> q, String id) {
        return q.get(id).orElseThrow().visibleUntil().orElseThrow();
    }
}
