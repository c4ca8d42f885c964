package io.github.deferlock.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Run on Java 21+ by {@link VirtualThreadWorkerIT}: handles 200 jobs on virtual threads and prints {@code
 * HANDLED <count> virtual=<all on virtual threads>}. Args: host, port.
 */
public final class VirtualThreadWorkerMain {
    private VirtualThreadWorkerMain() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        try (RedisClient redis = Clients.pooled(new HostAndPort(args[0], Integer.parseInt(args[1])))) {
            DelayQueue<Msg> queue = DelayQueue.builder(redis, "vt", Msg.class).build();
            List<Msg> payloads = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                payloads.add(new Msg("m", i));
            }
            Set<String> handled = ConcurrentHashMap.newKeySet();
            Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
            CountDownLatch done = new CountDownLatch(200);
            java.lang.reflect.Method isVirtual = Thread.class.getMethod("isVirtual");
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                        virtual.add((Boolean) isVirtual.invoke(Thread.currentThread()));
                        if (handled.add(job.id())) {
                            done.countDown();
                        }
                    })
                    .virtualThreads(true)
                    .concurrency(64)
                    .build()
                    .start()) {
                queue.enqueueAll(payloads, Duration.ZERO);
                boolean all = done.await(30, TimeUnit.SECONDS);
                System.out.println("HANDLED " + handled.size() + " virtual=" + (all && virtual.equals(Set.of(true)))
                        + " running=" + worker.isRunning());
            }
        }
    }
}
