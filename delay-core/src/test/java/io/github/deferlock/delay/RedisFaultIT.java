package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class RedisFaultIT {

    @Test
    void idleDisconnect_serverClosesIdleConnections_workerAndProducerCarryOn(RedisServer server) {
        server.config("timeout", "1");
        try (RedisClient producer = Clients.pooled(server);
                RedisClient consumer = Clients.pooled(server)) {
            DelayQueue<Msg> in = DelayQueue.builder(producer, "q", Msg.class).build();
            DelayQueue<Msg> out = DelayQueue.builder(consumer, "q", Msg.class).build();
            Set<Integer> handled = ConcurrentHashMap.newKeySet();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            out, job -> handled.add(job.payload().n()))
                    .fallbackPoll(Duration.ofSeconds(3))
                    .build()
                    .start()) {
                in.enqueue(new Msg("warm", 0));
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains(0));
                // idle for 3 s: the server drops every pooled connection (pub/sub ones are exempt)
                await().during(Duration.ofSeconds(3))
                        .atMost(Duration.ofSeconds(5))
                        .until(worker::isRunning);
                for (int i = 1; i <= 20; i++) {
                    in.enqueue(new Msg("after idle", i), Duration.ofMillis(i * 10L));
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 21);
            }
        } finally {
            server.config("timeout", "0");
        }
    }

    /**
     * Q5: 4 producer threads enqueue without pause while redis-server (AOF {@code appendfsync always}) is
     * SIGKILLed, so the kill lands on enqueues in flight (counted: calls begun before the kill that ended after
     * it), then restarted; the producers carry on. Every enqueue that returned (acknowledged) is delivered; a
     * failed one may or may not have been applied (delivered anyway: allowed, counted).
     */
    @Test
    void killAndRestart_withAppendfsyncAlways_midEnqueues_everyAcknowledgedEnqueueIsDelivered() throws Exception {
        try (RedisServer server = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                RedisClient producer = Clients.pooled(server);
                RedisClient consumer = Clients.pooled(server)) {
            DelayQueue<Msg> in = DelayQueue.builder(producer, "q", Msg.class).build();
            DelayQueue<Msg> out = DelayQueue.builder(consumer, "q", Msg.class)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            Set<String> handled = ConcurrentHashMap.newKeySet();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger acknowledgedAfterRestart = new AtomicInteger();
            List<long[]> calls = Collections.synchronizedList(new ArrayList<>()); // {began, ended} ns, every call
            AtomicBoolean restarted = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> producers = new ArrayList<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(out, job -> handled.add(job.id()))
                    .concurrency(4)
                    .build()
                    .start()) {
                for (int p = 0; p < 4; p++) {
                    int producerNo = p;
                    Thread t = new Thread(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            String id = "p" + producerNo + "-" + i;
                            long began = System.nanoTime();
                            try {
                                in.enqueue(id, new Msg("m", i), Duration.ofMillis(i % 500));
                                acknowledged.add(id);
                                if (restarted.get()) {
                                    acknowledgedAfterRestart.incrementAndGet();
                                }
                            } catch (DelayQueueException e) {
                                failed.incrementAndGet(); // outcome unknown: not acknowledged
                            }
                            calls.add(new long[] {began, System.nanoTime()});
                        }
                    });
                    producers.add(t);
                    t.start();
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 1000);
                long killedAt = System.nanoTime();
                server.kill();
                int acknowledgedAtKill = acknowledged.size();
                server.restart();
                restarted.set(true);
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledgedAfterRestart.get() >= 500);
                stop.set(true);
                for (Thread t : producers) {
                    t.join(Duration.ofSeconds(30).toMillis());
                    assertThat(t.isAlive()).isFalse();
                }
                long inFlightAtKill;
                synchronized (calls) {
                    inFlightAtKill = calls.stream()
                            .filter(c -> c[0] < killedAt && c[1] > killedAt)
                            .count();
                }
                try {
                    await().atMost(Duration.ofSeconds(60)).until(() -> handled.containsAll(acknowledged));
                } catch (ConditionTimeoutException e) {
                    // reported below, with the count lost
                }
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> out.size(JobState.DUE) + out.size(JobState.IN_FLIGHT) == 0);
                assertThat(worker.isRunning()).isTrue();
                Set<String> lost = new HashSet<>(acknowledged);
                lost.removeAll(handled);
                Set<String> unacknowledgedDelivered = new HashSet<>(handled);
                unacknowledgedDelivered.removeAll(acknowledged);
                System.out.printf(
                        "Q5: %d enqueues in flight at the SIGKILL (%d acknowledged before it); %d acknowledged in all,"
                                + " %d delivered, %d lost; %d failed calls, %d of them applied anyway (delivered)%n",
                        inFlightAtKill,
                        acknowledgedAtKill,
                        acknowledged.size(),
                        handled.size(),
                        lost.size(),
                        failed.get(),
                        unacknowledgedDelivered.size());
                assertThat(inFlightAtKill)
                        .as("enqueues in flight when the SIGKILL landed")
                        .isPositive();
                assertThat(lost).as("acknowledged but never delivered").isEmpty();
                assertThat(unacknowledgedDelivered.size()).isLessThanOrEqualTo(failed.get());
            } finally {
                stop.set(true);
            }
        }
    }
}
