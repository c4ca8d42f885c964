package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
final class WorkerCrashIT {

    @Test
    void crash_workerJvmKilledBetweenClaimAndAck_jobRedeliveredOnce(RedisServer server, UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "crash", Msg.class).build();
        String id = q.enqueue(new Msg("survive me", 1)).id();
        try (JvmProcess crasher = JvmProcess.start(
                CrashingWorkerMain.class, server.host(), String.valueOf(server.port()), "crash", "1000")) {
            assertThat(crasher.awaitLine("CLAIMED", Duration.ofSeconds(60))).isEqualTo("CLAIMED " + id + " 1");
            crasher.kill();
            assertThat(crasher.isAlive()).isFalse();
        }
        assertThat(q.get(id).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);

        List<Job<Msg>> deliveries = new CopyOnWriteArrayList<>();
        try (DelayQueueWorker<Msg> worker =
                DelayQueueWorker.builder(q, deliveries::add).build().start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> q.get(id).isEmpty());
            assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(deliveries).hasSize(1);
        assertThat(deliveries.get(0).id()).isEqualTo(id);
        assertThat(deliveries.get(0).attempts()).isEqualTo(2);
        assertThat(deliveries.get(0).payload()).isEqualTo(new Msg("survive me", 1));
    }
}
