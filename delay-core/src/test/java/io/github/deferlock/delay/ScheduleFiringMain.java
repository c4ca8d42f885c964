package io.github.deferlock.delay;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Run in a separate JVM by {@link SchedulesIT}: a worker that fires the queue's schedules and pushes the id of
 * every job it handles to the list {@code args[3]}, until it is killed. Args: host, port, queue name, list key,
 * and optionally {@code block}: the handler pushes the id, then never returns (a run under way when killed).
 */
public final class ScheduleFiringMain {
    private ScheduleFiringMain() {}

    /** Entry point. */
    public static void main(String[] args) throws InterruptedException {
        RedisClient redis = Clients.pooled(new HostAndPort(args[0], Integer.parseInt(args[1])));
        DelayQueue<Msg> queue = DelayQueue.builder(redis, args[2], Msg.class)
                .visibilityTimeout(Duration.ofSeconds(2))
                .build();
        boolean block = args.length > 4 && args[4].equals("block");
        DelayQueueWorker.builder(queue, job -> {
                    redis.rpush(args[3], job.id());
                    if (block) {
                        new CountDownLatch(1).await();
                    }
                })
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
