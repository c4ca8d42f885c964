package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Issue 30, "Replay records: bounded memory": the replay records of a queue's write calls (docs/queue-keys.md)
 * take memory bounded by the calls a client runs at once, not by how many jobs went through. Measured with
 * {@code MEMORY USAGE} over the queue's replay keys right after the jobs are gone (while every record written
 * would still live out its TTL), and held to at most 10 bytes per job.
 */
@ExtendWith(RedisExtension.class)
final class ReplayMemoryIT {
    /** The promise: replay memory per job that went through, bytes. */
    private static final double MAX_BYTES_PER_JOB = 10;

    /** The replay records of queue {@code name}: how many, and their bytes by {@code MEMORY USAGE}. */
    private record Records(int count, long bytes) {}

    private static Records records(Jedis jedis, String name) {
        String pattern = QueueKeys.prefix(name) + "r:*";
        int count = 0;
        long bytes = 0;
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page =
                    jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
            for (String key : page.getResult()) {
                Long used = jedis.memoryUsage(key);
                if (used != null) {
                    count++;
                    bytes += used;
                }
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return new Records(count, bytes);
    }

    @Test
    void workerFullDrain_replayRecordsBoundedByCallsAtOnce_atMostTenBytesPerJob(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server);
                Jedis jedis = server.newConnection()) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(redis, "replay-drain", Msg.class).build();
            int n = 20_000;
            List<Msg> payloads = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                payloads.add(new Msg("m", i));
            }
            q.enqueueAll(payloads, Duration.ZERO);
            Map<String, Integer> handled = new ConcurrentHashMap<>();
            int concurrency = 8;
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            q, job -> handled.merge(job.id(), 1, Integer::sum))
                    .concurrency(concurrency)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(120)).until(() -> handled.size() == n);
                await().atMost(Duration.ofSeconds(30)).until(() -> q.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(handled.values()).allMatch(c -> c == 1);
            Records r = records(jedis, q.name());
            System.out.printf(
                    "full drain of %d jobs: %d replay records, %d bytes, %.3f B/job%n",
                    n, r.count(), r.bytes(), (double) r.bytes() / n);
            // one record per call in progress at once: the dispatcher's claim or ack batch, and a settlement per
            // handler thread
            assertThat(r.count()).isLessThanOrEqualTo(concurrency + 2);
            assertThat((double) r.bytes() / n).isLessThanOrEqualTo(MAX_BYTES_PER_JOB);
        }
    }

    @Test
    void oneThreadEnqueuesByCallerIdAcksNacksCancels_oneRecordLeft(RedisServer server) {
        try (RedisClient redis = Clients.pooled(server);
                Jedis jedis = server.newConnection()) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "replay-calls", Msg.class)
                    .maxAttempts(1)
                    .build();
            int n = 2_000;
            for (int i = 0; i < n; i++) {
                q.enqueue("job-" + i, new Msg("m", i), Duration.ZERO);
            }
            int settled = 0;
            for (List<Job<Msg>> batch = q.claim(100); !batch.isEmpty(); batch = q.claim(100)) {
                for (Job<Msg> job : batch) {
                    int k = job.payload().n() % 4;
                    if (k == 0) {
                        assertThat(q.nack(job, "fails", Duration.ZERO)).isTrue(); // dead: one attempt
                    } else if (k == 1) {
                        assertThat(q.cancel(job.id())).isTrue();
                    } else {
                        assertThat(q.ack(job)).isTrue();
                    }
                    settled++;
                }
            }
            assertThat(settled).isEqualTo(n);
            Records r = records(jedis, q.name());
            System.out.printf(
                    "%d jobs enqueued by caller id, claimed and settled one by one: %d replay records, %d bytes,"
                            + " %.3f B/job%n",
                    n, r.count(), r.bytes(), (double) r.bytes() / n);
            // one thread, one call at a time: every call overwrote the record of the one before
            assertThat(r.count()).isEqualTo(1);
            assertThat((double) r.bytes() / n).isLessThanOrEqualTo(MAX_BYTES_PER_JOB);
        }
    }
}
