package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisBinary;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Q6: {@code SCRIPT FLUSH} and a redis-server restart (AOF always) while a producer enqueues and a worker
 * drains: no acknowledged job is lost and none is stuck in due or in flight at the end. The producer never
 * sees the {@code SCRIPT FLUSH} (the {@code NOSCRIPT} replies it met are answered inside the library), and
 * its calls fail only while redis-server is down, with a connection error: a restart on a loaded box takes
 * longer than the client's connection retry (about 120 ms), so a caller may see a few errors then, never
 * after, and never a {@code LOADING} reply (the library waits out a server loading its AOF).
 */
final class ScriptFlushRestartIT {

    @Test
    void scriptFlushAndRestart_underLoad_noJobLostOrStuck_producerFailsOnlyWhileRedisIsDown() throws Exception {
        long killedAt;
        long restartedAt;
        RedisServer.Builder builder = RedisServer.builder().appendOnly(true).appendFsync("always");
        if (Integer.parseInt(RedisBinary.resolve().version().split("\\.")[0]) >= 7) {
            // answer clients while loading the AOF (LOADING) rather than only after it (a 7.0 setting)
            builder.setting("loading-process-events-interval-bytes", "1024");
        }
        try (RedisServer server = builder.start();
                RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> queue = DelayQueue.builder(redis, "q6", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Set<String> handled = ConcurrentHashMap.newKeySet();
            AtomicInteger producerErrors = new AtomicInteger();
            List<long[]> failures = Collections.synchronizedList(new ArrayList<>()); // {began, ended} ns
            List<RuntimeException> failureCauses = Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean stop = new AtomicBoolean();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < 3000 && !stop.get(); i++) {
                    String id = "job-" + i;
                    while (!stop.get()) {
                        long started = System.nanoTime();
                        try {
                            queue.enqueue(id, new Msg("m", i), Duration.ofMillis(i % 50));
                            acknowledged.add(id);
                            break;
                        } catch (RuntimeException e) {
                            producerErrors.incrementAndGet(); // the restart: try the same id again
                            failures.add(new long[] {started, System.nanoTime()});
                            failureCauses.add(e);
                        }
                    }
                }
            });
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> handled.add(job.id()))
                    .concurrency(4)
                    .build()
                    .start()) {
                assertThat(worker.isRunning()).isTrue();
                producer.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 500);
                try (Jedis admin = server.newConnection()) {
                    admin.scriptFlush();
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 1500);
                try (Jedis admin = server.newConnection()) {
                    assertThat(admin.info("errorstats"))
                            .as("the client met NOSCRIPT after the flush")
                            .contains("errorstat_NOSCRIPT:count=");
                }
                killedAt = System.nanoTime();
                server.kill();
                server.restart();
                restartedAt = System.nanoTime();
                producer.join(Duration.ofSeconds(60).toMillis());
                assertThat(producer.isAlive()).isFalse();
                await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(acknowledged));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT) == 0);
            } finally {
                stop.set(true);
            }
            for (int k = 0; k < failures.size(); k++) {
                System.out.printf(
                        "Q6 producer error: a call made %+d ms after the kill failed at %+d ms: %s%n",
                        (failures.get(k)[0] - killedAt) / 1_000_000,
                        (failures.get(k)[1] - killedAt) / 1_000_000,
                        failureCauses.get(k));
            }
            assertThat(failures)
                    .as("producer calls that failed before the kill (SCRIPT FLUSH included)")
                    .noneMatch(call -> call[1] < killedAt);
            assertThat(failures)
                    .as("producer calls that failed although made after redis-server was back")
                    .noneMatch(call -> call[0] > restartedAt);
            assertThat(failureCauses).allSatisfy(e -> assertThat(down(e))
                    .as("a connection error, not LOADING: %s", e)
                    .isTrue());
            assertThat(acknowledged).hasSize(3000);
            assertThat(handled).containsAll(acknowledged);
            assertThat(queue.size(JobState.DEAD)).isZero();
            System.out.printf(
                    "Q6: %d acknowledged, %d handled, %d producer errors retried across SCRIPT FLUSH + kill/restart"
                            + " (redis-server back %d ms after the kill)%n",
                    acknowledged.size(), handled.size(), producerErrors.get(), (restartedAt - killedAt) / 1_000_000);
        }
    }

    /** A connection error (redis-server was down), and no LOADING reply anywhere in the chain. */
    private static boolean down(Throwable e) {
        boolean connection = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            String msg = String.valueOf(t.getMessage());
            if (msg.startsWith("LOADING") || msg.contains(": LOADING ")) {
                return false;
            }
            connection |= t instanceof JedisConnectionException;
        }
        return connection;
    }
}
