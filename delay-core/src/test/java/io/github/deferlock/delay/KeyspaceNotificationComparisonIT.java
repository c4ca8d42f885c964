package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Q7: the seed article's keyspace-notification delay queue (a key per job that expires at its due time, a
 * subscriber on {@code __keyevent@0__:expired}) beside ours, across a 2 s disconnect of their consumers.
 * Expiry events are fire-and-forget: those published while the subscriber is away are gone. Our jobs wait
 * in a zset until a worker claims them, so the same outage only delays them.
 */
@ExtendWith(RedisExtension.class)
final class KeyspaceNotificationComparisonIT {

    private static final int JOBS = 40;

    /** The seed design's consumer: subscribes through {@code proxy} and reconnects when cut off. */
    private static Thread seedConsumer(FaultProxy proxy, Set<String> received, AtomicBoolean stop) {
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                try (Jedis sub = new Jedis(
                        proxy.hostAndPort(),
                        DefaultJedisClientConfig.builder()
                                .autoNegotiateProtocol(false)
                                .build())) {
                    sub.subscribe(
                            new JedisPubSub() {
                                @Override
                                public void onMessage(String channel, String key) {
                                    if (key.startsWith("seed:")) {
                                        received.add(key);
                                    }
                                    if (stop.get()) {
                                        unsubscribe();
                                    }
                                }
                            },
                            "__keyevent@0__:expired");
                } catch (RuntimeException e) {
                    // cut off: reconnect, as the seed article advises
                }
                if (!stop.get()) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void subscriberDisconnect_seedLosesExpiryEvents_oursLosesNone(RedisServer server, RedisClient direct)
            throws Exception {
        server.config("notify-keyspace-events", "Ex");
        Set<String> seedReceived = ConcurrentHashMap.newKeySet();
        Set<String> oursHandled = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build()) {
            seedConsumer(proxy, seedReceived, stop);
            DelayQueue<Msg> queue =
                    DelayQueue.builder(viaProxy, "q7", Msg.class).build();
            DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            queue, job -> oursHandled.add(job.payload().text()))
                    .fallbackPoll(Duration.ofMillis(200))
                    .build()
                    .start();
            await().atMost(Duration.ofSeconds(10)).until(() -> proxy.openConnections() >= 2);

            DelayQueue<Msg> producer =
                    DelayQueue.builder(direct, "q7", Msg.class).build();
            for (int i = 0; i < JOBS; i++) {
                long delayMs = 500 + i * 75L; // due between 0.5 s and 3.5 s from now
                direct.set("seed:" + i, "", SetParams.setParams().px(delayMs));
                producer.enqueue(new Msg("ours:" + i, i), Duration.ofMillis(delayMs));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !seedReceived.isEmpty());
            proxy.refuse(); // both consumers lose their connections for 2 s
            long cutAt = System.nanoTime();
            Thread.sleep(2_000); // the outage itself: this is the fault being injected, not a wait for a result
            proxy.heal();
            long outage = (System.nanoTime() - cutAt) / 1_000_000;

            await().atMost(Duration.ofSeconds(30)).until(() -> oursHandled.size() == JOBS);
            // every seed key has expired by now (touching one expires it at once, firing its event)
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                for (int i = 0; i < JOBS; i++) {
                    direct.exists("seed:" + i);
                }
                return direct.keys("seed:*").isEmpty();
            });
            stop.set(true);
            worker.close();
            int lost = JOBS - seedReceived.size();
            System.out.printf(
                    "Q7 after a %d ms subscriber outage: keyspace-notification queue lost %d of %d jobs, ours lost %d%n",
                    outage, lost, JOBS, JOBS - oursHandled.size());
            assertThat(lost)
                    .as("expiry events published during the outage are gone")
                    .isPositive();
            assertThat(oursHandled).hasSize(JOBS);
        }
    }
}
