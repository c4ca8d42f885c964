package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisCluster;
import io.github.deferlock.testing.RedisSentinelGroup;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Kills the Sentinel primary while a producer enqueues and two workers drain the queue, with {@code appendonly
 * yes} and {@code appendfsync always} on every data node, and measures: time until a job enqueued after the
 * kill is handled, acknowledged enqueues lost (asynchronous replication: the promoted replica may miss the
 * last writes), duplicate deliveries (an ack lost with the old primary means a redelivery after the
 * visibility timeout), and {@code READONLY} errors that reached the producer. Figures go to the log and to
 * {@code target/queue-failover-figures.txt}.
 */
final class QueueFailoverIT {
    private static final Logger LOG = LoggerFactory.getLogger(QueueFailoverIT.class);
    private static final Duration VISIBILITY = Duration.ofSeconds(2);
    private static final Duration WAIT_TIMEOUT = Duration.ofMillis(500);

    @ParameterizedTest(name = "sentinel waitForReplicas={0}")
    @ValueSource(booleans = {false, true})
    void killPrimary_sentinelUnderLoad_workersRecoverAndLossDuplicatesMeasured(boolean withWait) throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.builder()
                        .setting("appendonly", "yes")
                        .setting("appendfsync", "always")
                        .start();
                UnifiedJedis producerClient = group.newClient();
                UnifiedJedis workerClient = group.newClient()) {
            Duration bound = group.downAfter().plus(group.failoverTimeout()).plusSeconds(2);
            run("sentinel", group.primary().version(), withWait, producerClient, workerClient, bound, () -> {
                RedisServer old = group.primary();
                old.kill();
            });
        }
    }

    /**
     * Kills the master serving the queue's hash tag (it has one replica) under the same load. Without WAIT:
     * with {@code waitForReplicas(1)} the promoted replica has no replica until the killed node rejoins.
     */
    @Test
    void killMaster_clusterUnderLoad_workersRecoverAndLossDuplicatesMeasured() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder()
                        .replicas(true)
                        .setting("appendonly", "yes")
                        .setting("appendfsync", "always")
                        .start();
                UnifiedJedis producerClient = cluster.newClient();
                UnifiedJedis workerClient = cluster.newClient()) {
            // node timeout to mark the master failed, then the replica election (about a node timeout)
            Duration bound = cluster.nodeTimeout().multipliedBy(3).plusSeconds(2);
            run(
                    "cluster",
                    cluster.node(0).version(),
                    false,
                    producerClient,
                    workerClient,
                    bound,
                    () -> cluster.masterFor("{fo}").kill());
        }
    }

    private void run(
            String topology,
            String version,
            boolean withWait,
            UnifiedJedis producerClient,
            UnifiedJedis workerClient,
            Duration bound,
            Runnable kill)
            throws Exception {
        DelayQueue.Builder<Msg> producerBuilder =
                DelayQueue.builder(producerClient, "fo", Msg.class).visibilityTimeout(VISIBILITY);
        DelayQueue.Builder<Msg> workerBuilder =
                DelayQueue.builder(workerClient, "fo", Msg.class).visibilityTimeout(VISIBILITY);
        if (withWait) {
            producerBuilder.waitForReplicas(1, WAIT_TIMEOUT);
            workerBuilder.waitForReplicas(1, WAIT_TIMEOUT);
        }
        DelayQueue<Msg> producerQueue = producerBuilder.build();
        DelayQueue<Msg> workerQueue = workerBuilder.build();

        Map<String, Long> ackedAt = new ConcurrentHashMap<>();
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        AtomicLong killedAt = new AtomicLong();
        AtomicLong recoveredAt = new AtomicLong();
        AtomicLong readOnly = new AtomicLong();
        AtomicLong producerErrors = new AtomicLong();
        ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();
        JobHandler<Msg> handler = job -> {
            handled.merge(job.id(), 1, Integer::sum);
            Long acked = ackedAt.get(job.id());
            long killed = killedAt.get();
            if (killed != 0 && acked != null && acked > killed) {
                recoveredAt.compareAndSet(0, System.nanoTime());
            }
        };
        List<DelayQueueWorker<Msg>> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            workers.add(DelayQueueWorker.builder(workerQueue, handler)
                    .concurrency(2)
                    .build()
                    .start());
        }
        volatileStop = false;
        Thread producer = new Thread(() -> {
            int n = 0;
            while (!volatileStop) {
                String id = "job-" + n;
                try {
                    // an enqueue whose outcome is unknown is retried with the same id: idempotent
                    producerQueue.enqueue(id, new Msg("m", n), Duration.ZERO);
                    ackedAt.put(id, System.nanoTime());
                    n++;
                } catch (RuntimeException e) {
                    String text = e + " " + e.getCause();
                    if (text.contains("READONLY") || text.contains("CROSSSLOT")) {
                        readOnly.incrementAndGet();
                    }
                    producerErrors.incrementAndGet();
                    if (samples.size() < 5) {
                        samples.add(text);
                    }
                }
            }
        });
        producer.setDaemon(true);
        producer.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() > 200);
        kill.run();
        killedAt.set(System.nanoTime());
        try {
            await().atMost(bound.plusSeconds(5)).until(() -> recoveredAt.get() != 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no job enqueued after the kill was handled; producer errors " + samples, e);
        }
        long recoveryMs = (recoveredAt.get() - killedAt.get()) / 1_000_000;
        int atRecovery = handled.size();
        await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() > atRecovery + 200);
        volatileStop = true;
        producer.join(5_000);

        // drain: jobs whose ack died with the old primary come back after the visibility timeout
        Set<String> acked = Set.copyOf(ackedAt.keySet());
        try {
            await().atMost(VISIBILITY.plusSeconds(3))
                    .until(() -> handled.keySet().containsAll(acked));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // some acknowledged enqueues are gone: counted below
        }
        workers.forEach(DelayQueueWorker::close);
        List<String> lost =
                acked.stream().filter(id -> !handled.containsKey(id)).toList();
        long duplicates = handled.values().stream().filter(c -> c > 1).count();
        String figures = String.format(
                "queue failover (%s, Redis %s, appendfsync always, %s): recovery %d ms (bound %d ms),"
                        + " %d acknowledged enqueues, %d lost, %d duplicate deliveries, %d READONLY/CROSSSLOT, %d other"
                        + " producer errors (retried)%n",
                topology,
                version,
                withWait ? "WAIT 1 after enqueue and ack" : "no WAIT",
                recoveryMs,
                bound.toMillis(),
                acked.size(),
                lost.size(),
                duplicates,
                readOnly.get(),
                producerErrors.get() - readOnly.get());
        LOG.info("{} samples: {}", figures.trim(), samples);
        Files.writeString(
                Path.of("target", "queue-failover-figures.txt"),
                figures,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);

        assertThat(readOnly)
                .as("READONLY/CROSSSLOT errors seen by the producer")
                .hasValue(0);
        assertThat(recoveryMs).as("recovery time (ms)").isLessThanOrEqualTo(bound.toMillis());
        // a job not delivered is gone from Redis (lost with the old primary), never stuck
        for (String id : lost) {
            assertThat(producerQueue.get(id)).as(id).isEmpty();
        }
    }

    private static volatile boolean volatileStop;
}
