package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@link DelayQueue#pause()} across processes: a worker JVM and an in-process worker started while the queue is
 * paused stay idle (without spinning), and a resume wakes both at once. The contract on three topologies
 * (pause while workers hold jobs) is in {@link QueueContract}.
 */
@ExtendWith(RedisExtension.class)
final class QueuePauseIT {

    @Test
    void workersStartedWhilePaused_claimNothing_untilResumeWakesEveryProcess(RedisServer server, UnifiedJedis redis) {
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "paused-at-start", Msg.class).build();
        assertThat(q.pause()).isTrue();
        assertThat(q.pause()).isFalse(); // idempotent: already paused
        for (int i = 0; i < 40; i++) {
            assertThat(q.enqueue("job-" + i, new Msg("m", i), Duration.ZERO).duplicate())
                    .isFalse(); // enqueues go on while paused
        }
        Set<String> handledHere = ConcurrentHashMap.newKeySet();
        try (JvmProcess other = JvmProcess.start(
                        PausedWorkerMain.class, server.host(), String.valueOf(server.port()), q.name());
                DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> handledHere.add(job.id()))
                        .fallbackPoll(Duration.ofSeconds(5))
                        .build()
                        .start()) {
            other.awaitLine("READY", Duration.ofSeconds(60));
            long rounds = worker.dispatcherRounds();
            // both workers run and are subscribed; paused, they claim nothing and do not spin
            await().pollDelay(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> true);
            assertThat(handledHere).isEmpty();
            assertThat(other.output()).noneMatch(l -> l.startsWith("HANDLED"));
            assertThat(q.stats().due()).isEqualTo(40);
            assertThat(q.isPaused()).isTrue();
            assertThat(worker.dispatcherRounds() - rounds)
                    .as("dispatcher rounds while paused")
                    .isLessThan(10);

            long resumed = System.nanoTime();
            assertThat(q.resume()).isTrue();
            assertThat(q.resume()).isFalse();
            // the resume notice wakes both, long before their 5 s fallback poll
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> handledHere.size() + handledThere(other).size() == 40);
            Duration took = Duration.ofNanos(System.nanoTime() - resumed);
            assertThat(took).as("all 40 handled after resume").isLessThan(Duration.ofMillis(2500));
            assertThat(q.isPaused()).isFalse();
            Set<String> all = new HashSet<>(handledHere);
            all.addAll(handledThere(other));
            assertThat(all).hasSize(40);
        }
    }

    private static List<String> handledThere(JvmProcess p) {
        return p.output().stream()
                .filter(l -> l.startsWith("HANDLED "))
                .map(l -> l.substring(8))
                .toList();
    }
}
