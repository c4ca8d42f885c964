package io.github.deferlock.delay;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Run in a separate JVM by {@link QueuePauseIT}: a worker (fallback poll 5 s, so only a notice wakes it sooner)
 * whose handler prints {@code HANDLED <id>}; prints {@code READY} once started. Args: host, port, queue name.
 */
public final class PausedWorkerMain {
    private PausedWorkerMain() {}

    /** Entry point. */
    public static void main(String[] args) throws InterruptedException {
        RedisClient redis = Clients.pooled(new HostAndPort(args[0], Integer.parseInt(args[1])));
        DelayQueue<Msg> queue = DelayQueue.builder(redis, args[2], Msg.class).build();
        DelayQueueWorker.builder(queue, job -> {
                    System.out.println("HANDLED " + job.id());
                    System.out.flush();
                })
                .fallbackPoll(Duration.ofSeconds(5))
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
