package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The broker restarts mid-run: redis-server (AOF, appendfsync always) is SIGKILLed while consumers work and
 * started again; the same consumer object goes on without being rebuilt and every message is handled. A
 * message whose handler ran but whose done marker did not reach Redis before the kill may run a second time
 * (the at-least-once edge of docs/strategies.md); at most one per consumer thread can be in that window.
 */
final class RedisRestartIT {
    private static final int MESSAGES = 2_000;
    private static final int THREADS = 4;

    @Test
    void redisKilledAndRestartedMidRun_consumersRecoverWithoutBeingRebuilt_andLoseNothing() throws Exception {
        try (RedisServer server = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                Fixture f =
                        new Fixture(server.hostAndPort(), Duration.ZERO, Duration.ofSeconds(2)).withDeferralWorker();
                RedisClient producerClient = Fixture.pooled(server.hostAndPort())) {
            StreamProducer producer =
                    StreamProducer.builder(producerClient, "orders").build();
            AtomicInteger produced = new AtomicInteger();
            Thread feeder = new Thread(() -> {
                while (produced.get() < MESSAGES) {
                    int i = produced.get();
                    try {
                        producer.add(new Order("m" + i, "k" + (i % 200)));
                        produced.incrementAndGet();
                    } catch (RuntimeException e) { // Redis is down: try the same message again
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException ie) {
                            return;
                        }
                    }
                }
            });
            try (StreamConsumer<Order> c = f.consumer("orders")
                    .concurrency(THREADS)
                    .claimIdle(Duration.ofSeconds(2))
                    .claimInterval(Duration.ofMillis(250))
                    .build()
                    .start()) {
                feeder.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> f.handledIds() >= MESSAGES / 3);
                server.kill();
                int handledAtKill = f.recorder.processed.get();
                server.restart();
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> produced.get() == MESSAGES
                                && f.handledIds() == MESSAGES
                                && f.pending("orders") == 0
                                && f.deferralsLeft() == 0);
                assertThat(c.isRunning()).isTrue();
                assertThat(f.recorder.processed.get())
                        .as("handled after the restart")
                        .isGreaterThan(handledAtKill);
                System.out.printf(
                        "streams redis restart: %d messages, %d handled twice (%s), %d reclaimed, %d duplicates skipped%n",
                        MESSAGES,
                        f.duplicates().size(),
                        f.duplicates(),
                        f.recorder.reclaimed.get(),
                        f.recorder.duplicates.get());
                assertThat(f.duplicates()).hasSizeLessThanOrEqualTo(THREADS);
            } finally {
                feeder.interrupt();
                feeder.join(10_000);
            }
        }
    }
}
