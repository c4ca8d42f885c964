package io.github.deferlock.benchmarks;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import java.time.Duration;
import redis.clients.jedis.RedisClient;

/**
 * The child JVM of {@code queue.fault.*}: a {@link DelayQueueWorker} (concurrency 8) whose handler prints
 * {@code GOT <payload seq>} and then blocks, so its jobs stay in flight until the parent SIGKILLs it.
 *
 * <p>Arguments: redis URI, queue name, visibility timeout ms, side ({@code deferlock} or {@code redisson}: 8
 * threads {@code take()} from an {@code RBlockingQueue} of that name, the same blocking handler).
 */
public final class FaultWorker {

    private FaultWorker() {}

    /** Runs the worker until killed. */
    public static void main(String[] args) throws Exception {
        Redis redis = Redis.parse(args[0]);
        if (args.length > 3 && args[3].equals(Sides.REDISSON)) {
            org.redisson.api.RBlockingQueue<String> q = redis.redisson().getBlockingQueue(args[1]);
            for (int i = 0; i < 8; i++) {
                Thread t = new Thread(() -> {
                    try {
                        String p = q.take();
                        System.out.println("GOT " + p.substring(0, p.indexOf(':')));
                        System.out.flush();
                        Thread.sleep(Duration.ofHours(1).toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
            }
            System.out.println("STARTED");
            System.out.flush();
            Thread.sleep(Duration.ofHours(1).toMillis());
            return;
        }
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
