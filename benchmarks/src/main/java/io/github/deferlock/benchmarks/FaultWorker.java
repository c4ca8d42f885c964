package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import java.time.Duration;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@code queue.fault.*}: a {@link DelayQueueWorker} (concurrency 8) whose handler prints
 * {@code GOT <payload seq>} and then blocks, so its jobs stay in flight until the parent SIGKILLs it.
 *
 * <p>Arguments: redis URI, queue name, visibility timeout ms.
 */
public final class FaultWorker {

    private FaultWorker() {}

    /** Runs the worker until killed. */
    public static void main(String[] args) throws Exception {
        Redis redis = Redis.parse(args[0]);
        RedisClient client = redis.jedis();
        DelayQueue<String> q = DelayQueue.builder(client, args[1], String.class)
                .visibilityTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        DelayQueueWorker.builder(q, job -> {
                    String p = job.payload();
                    System.out.println("GOT " + p.substring(0, p.indexOf(':')));
                    System.out.flush();
                    Thread.sleep(Duration.ofHours(1).toMillis());
                })
                .concurrency(8)
                .build()
                .start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Duration.ofHours(1).toMillis());
    }
}
