package io.github.deferlock.delay;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Run in a separate JVM by {@link QueueLoadIT}: a worker of concurrency 8 that records every handled id with
 * {@code SADD} into a set and counts duplicates, prints {@code READY}, and once the queue is empty prints
 * {@code DONE <handled> <duplicates>} and exits. Args: host, port, queue name, seen-set key.
 */
public final class ManyJobsWorkerMain {
    private ManyJobsWorkerMain() {}

    /** Entry point. */
    public static void main(String[] args) {
        RedisClient redis = Clients.pooled(new HostAndPort(args[0], Integer.parseInt(args[1])));
        DelayQueue<Msg> queue = DelayQueue.builder(redis, args[2], Msg.class).build();
        AtomicLong handled = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                    handled.incrementAndGet();
                    if (redis.sadd(args[3], job.id()) == 0) {
                        duplicates.incrementAndGet();
                    }
                })
                .concurrency(8)
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> queue.size(JobState.DUE) + queue.size(JobState.IN_FLIGHT) == 0);
        worker.close(Duration.ofSeconds(10));
        System.out.println("DONE " + handled.get() + " " + duplicates.get());
        System.out.flush();
        redis.close();
    }
}
