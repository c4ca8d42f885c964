package io.github.deferlock.delay;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Run in a separate JVM by {@link WorkerCrashIT}: a worker whose handler prints {@code CLAIMED <id>
 * <attempts>} and then blocks forever, so the test can SIGKILL it between claim and ack. Args: host, port,
 * queue name, visibility timeout in ms, and optionally the handler threads (default 1).
 */
public final class CrashingWorkerMain {
    private CrashingWorkerMain() {}

    /** Entry point. */
    public static void main(String[] args) throws InterruptedException {
        RedisClient redis = Clients.pooled(new HostAndPort(args[0], Integer.parseInt(args[1])));
        DelayQueue<Msg> queue = DelayQueue.builder(redis, args[2], Msg.class)
                .visibilityTimeout(Duration.ofMillis(Long.parseLong(args[3])))
                .build();
        CountDownLatch never = new CountDownLatch(1);
        DelayQueueWorker.builder(queue, job -> {
                    System.out.println("CLAIMED " + job.id() + " " + job.attempts());
                    System.out.flush();
                    never.await();
                })
                .concurrency(args.length > 4 ? Integer.parseInt(args[4]) : 1)
                .build()
                .start();
        System.out.println("READY");
        System.out.flush();
        never.await();
    }
}
