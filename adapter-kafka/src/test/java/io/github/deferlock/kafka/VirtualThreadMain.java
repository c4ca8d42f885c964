package io.github.deferlock.kafka;

import io.github.deferlock.conflict.Outcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.HostAndPort;

/**
 * Runs a {@link TopicConsumer} on virtual threads (needs Java 21+). Args: redis port, bootstrap servers, topic,
 * records expected. Prints {@code HANDLED <n> virtual=<handler thread was virtual>} once n records were
 * processed.
 */
public final class VirtualThreadMain {
    private VirtualThreadMain() {}

    public static void main(String[] args) throws Exception {
        int expected = Integer.parseInt(args[3]);
        Fixture f = new Fixture(new HostAndPort("127.0.0.1", Integer.parseInt(args[0])), Duration.ZERO);
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", args[1]);
        config.put("group.id", args[2]);
        AtomicInteger processed = new AtomicInteger();
        AtomicInteger platform = new AtomicInteger();
        try (TopicConsumer<Order> c = TopicConsumer.builder(config, args[2], Order.class, f.handler)
                .concurrency(8)
                .virtualThreads(true)
                .listener(new TopicListener() {
                    @Override
                    public void onHandled(String recordId, Outcome outcome, Duration took) {
                        if (!Thread.currentThread().toString().startsWith("VirtualThread")) {
                            platform.incrementAndGet();
                        }
                        processed.incrementAndGet();
                    }
                })
                .build()
                .start()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (c.isRunning() && processed.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            System.out.println("HANDLED " + processed.get() + " virtual=" + (platform.get() == 0));
            System.out.flush();
        }
        f.close();
    }
}
