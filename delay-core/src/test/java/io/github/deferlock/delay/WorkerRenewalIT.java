package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** Issue 14, defect 1: a running job keeps its claim (the worker renews its visibility), and loses it visibly. */
@ExtendWith(RedisExtension.class)
final class WorkerRenewalIT {
    private static final Duration VISIBILITY = Duration.ofMillis(300);

    @Test
    void worker_handlerTenTimesSlowerThanVisibility_runsOnceAndAcked(UnifiedJedis redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "renew-slow", Msg.class)
                .visibilityTimeout(VISIBILITY)
                .maxAttempts(10)
                .build();
        List<Integer> runs = new CopyOnWriteArrayList<>();
        String id = queue.enqueue(new Msg("slow", 1)).id();
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                    runs.add(job.attempts());
                    Thread.sleep(VISIBILITY.toMillis() * 10); // the handler's own work: 3 s
                })
                .concurrency(4)
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> queue.get(id).isEmpty());
            assertThat(worker.close(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(runs).as("attempt numbers of the handler runs").containsExactly(1);
        assertThat(queue.size(JobState.DEAD)).isZero();
    }

    @Test
    void worker_maxHandlerTime_renewalStopsAndJobRedelivered(UnifiedJedis redis) throws InterruptedException {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "renew-max", Msg.class)
                .visibilityTimeout(VISIBILITY)
                .build();
        Duration maxHandlerTime = Duration.ofMillis(900);
        List<Job<Msg>> deliveries = new CopyOnWriteArrayList<>();
        AtomicLong firstStart = new AtomicLong();
        AtomicLong secondStart = new AtomicLong();
        CountDownLatch release = new CountDownLatch(1);
        String id = queue.enqueue(new Msg("hangs", 1)).id();
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                    deliveries.add(job);
                    if (job.attempts() == 1) {
                        firstStart.set(System.nanoTime());
                        release.await(20, TimeUnit.SECONDS); // hangs until the redelivery came
                    } else {
                        secondStart.set(System.nanoTime());
                        release.countDown();
                    }
                })
                .concurrency(2)
                .maxHandlerTime(maxHandlerTime)
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.size() >= 2);
            await().atMost(Duration.ofSeconds(20)).until(() -> queue.get(id).isEmpty());
            worker.close(Duration.ofSeconds(10));
        }
        assertThat(deliveries).extracting(Job::id).containsExactly(id, id);
        assertThat(deliveries).extracting(Job::attempts).containsExactly(1, 2);
        // renewed until maxHandlerTime, then redelivered once the last renewed deadline passed
        assertThat(Duration.ofNanos(secondStart.get() - firstStart.get())).isGreaterThanOrEqualTo(maxHandlerTime);
    }

    @Test
    void worker_jobCancelledWhileRunning_claimLostInterruptedAckRefusedOnce(UnifiedJedis redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "renew-lost", Msg.class)
                .visibilityTimeout(VISIBILITY)
                .build();
        AtomicBoolean started = new AtomicBoolean();
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean lostSeen = new AtomicBoolean();
        CountDownLatch never = new CountDownLatch(1);
        String id = queue.enqueue(new Msg("cancel me", 1)).id();
        String output;
        try (StderrCapture log = new StderrCapture()) {
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                        started.set(true);
                        try {
                            never.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            interrupted.set(true);
                        }
                        lostSeen.set(job.isClaimLost());
                        // returns normally: the worker would ack
                    })
                    .interruptOnClaimLost(true)
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(10)).untilTrue(started);
                assertThat(queue.cancel(id)).isTrue();
                await().atMost(Duration.ofSeconds(10)).untilTrue(interrupted);
                assertThat(worker.close(Duration.ofSeconds(10))).isTrue();
            }
            output = log.text();
        }
        assertThat(lostSeen).isTrue();
        assertThat(queue.get(id)).isEmpty();
        assertThat(output.lines().filter(l -> l.contains("WARN") && l.contains(id)))
                .as("WARN lines about the job in:%n%s", output)
                .hasSize(1)
                .allMatch(l -> l.contains("ack of job " + id + " refused"));
    }

    @Test
    void worker_jobCancelledWhileRunning_handlerPollsClaimLostWithoutInterrupt(UnifiedJedis redis) {
        DelayQueue<Msg> queue = DelayQueue.builder(redis, "renew-poll", Msg.class)
                .visibilityTimeout(VISIBILITY)
                .build();
        AtomicBoolean started = new AtomicBoolean();
        AtomicBoolean stoppedOnSignal = new AtomicBoolean();
        AtomicBoolean interrupted = new AtomicBoolean();
        String id = queue.enqueue(new Msg("poll me", 1)).id();
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                    started.set(true);
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (System.nanoTime() - end < 0) {
                        if (job.isClaimLost()) {
                            stoppedOnSignal.set(true);
                            break;
                        }
                        try {
                            Thread.sleep(10); // a step of the handler's work
                        } catch (InterruptedException e) {
                            interrupted.set(true);
                            break;
                        }
                    }
                })
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(10)).untilTrue(started);
            assertThat(queue.cancel(id)).isTrue();
            await().atMost(Duration.ofSeconds(10)).untilTrue(stoppedOnSignal);
            assertThat(worker.close(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(interrupted).isFalse();
    }

    /** Copies what is written to System.err (where slf4j-simple logs) while open. */
    static final class StderrCapture implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        StderrCapture() {
            OutputStream tee = new OutputStream() {
                @Override
                public void write(int b) {
                    original.write(b);
                    synchronized (copy) {
                        copy.write(b);
                    }
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    original.write(b, off, len);
                    synchronized (copy) {
                        copy.write(b, off, len);
                    }
                }
            };
            System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
        }

        String text() {
            synchronized (copy) {
                return copy.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }
}
