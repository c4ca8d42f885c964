package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Progress ({@link Job#progress(int, String)}) on a standalone server, a cluster and a Sentinel group: stored beside the running
 * job, rate-limited on the client with the held-back value written at the next renewal or when the handler fails,
 * refused under a stale receipt, deleted with the job.
 */
final class JobProgressIT {

    @Nested
    final class Standalone extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.standalone();
        }
    }

    @Nested
    final class Cluster extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.cluster();
        }
    }

    @Nested
    final class Sentinel extends Contract {
        @Override
        RedisDeployment start() {
            return RedisDeployment.sentinel();
        }
    }

    abstract static class Contract extends TopologyContract {
        private static final byte[] ERRORS = "deferlock:dq:{progress}:errors".getBytes(StandardCharsets.UTF_8);
        /** Whether the errors hash holds the progress field of {@code id} (0xFF + id, progress_field.lua). */
        private boolean progressStored(String id) {
            byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
            byte[] field = new byte[utf8.length + 1];
            field[0] = (byte) 0xFF;
            System.arraycopy(utf8, 0, field, 1, utf8.length);
            return redis.hexists(ERRORS, field);
        }

        private DelayQueue<Msg> queue(Duration visibility) {
            return DelayQueue.builder(redis, "progress", Msg.class)
                    .visibilityTimeout(visibility)
                    .maxAttempts(2)
                    .backoff(Backoff.fixed(Duration.ofHours(1)))
                    .build();
        }

        private static JobProgress progress(DelayQueue<Msg> q, String id) {
            return q.get(id).orElseThrow().progress().orElse(null);
        }

        @Test
        void progress_isStoredWithTheRunningJob_heldBackWithinTheInterval_andDeletedByTheAck() {
            DelayQueue<Msg> q = queue(Duration.ofMinutes(1));
            q.enqueue("p", new Msg("p", 1), Duration.ZERO);
            Job<Msg> job = q.claim(1).get(0);
            assertThat(progress(q, "p")).isNull();

            job.progress(40, "half way, ünïcode");
            assertThat(progressStored("p")).isTrue();
            JobProgress stored = progress(q, "p");
            assertThat(stored.percent()).isEqualTo(40);
            assertThat(stored.note()).isEqualTo("half way, ünïcode");
            assertThat(stored.attempt()).isEqualTo(1);

            job.progress(41, "held back"); // within 250 ms of the last write: not written yet
            assertThat(progress(q, "p").percent()).isEqualTo(40);
            // a report after the interval is written
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                job.progress(60);
                return progress(q, "p").percent() == 60;
            });
            assertThat(progress(q, "p").note()).isEmpty();

            assertThat(q.ack(job)).isTrue();
            assertThat(progressStored("p")).isFalse();
        }

        @Test
        void aStaleReceipt_writesNothing_andCancelDeletesTheProgress() {
            DelayQueue<Msg> q = queue(Duration.ofMinutes(1));
            q.enqueue("s", new Msg("s", 1), Duration.ZERO);
            Job<Msg> job = q.claim(1).get(0);
            job.progress(10, "first");
            assertThat(q.reschedule(job, Duration.ZERO, null)).isTrue(); // the claim is over
            Job<Msg> next = q.claim(1).get(0);
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                job.progress(99, "stale");
                next.progress(20, "current");
                return progress(q, "s").percent() == 20;
            });
            assertThat(progress(q, "s").note()).isEqualTo("current");

            assertThat(q.cancel("s")).isTrue();
            assertThat(progressStored("s")).isFalse();
        }

        @Test
        void aFailingHandler_writesItsHeldBackProgress_whichTheDeadLetterKeeps() {
            DelayQueue<Msg> q = queue(Duration.ofMinutes(1));
            q.enqueue("f", new Msg("f", 1), Duration.ZERO);
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        job.progress(10, "started");
                        job.progress(70, "got far"); // held back: written when the handler fails
                        throw new IllegalStateException("boom");
                    })
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> q.get("f").orElseThrow().attempts() == 1
                                && progress(q, "f") != null
                                && progress(q, "f").percent() == 70);
                assertThat(worker.isRunning()).isTrue();
            }
            JobProgress p = progress(q, "f");
            assertThat(p.note()).isEqualTo("got far");
            assertThat(p.attempt()).isEqualTo(1);
            assertThat(q.get("f").orElseThrow().state()).isEqualTo(JobState.DUE); // retried in an hour, progress kept
        }

        @Test
        void aLongHandler_getsItsHeldBackProgressWrittenAtTheNextRenewal() throws Exception {
            DelayQueue<Msg> q = queue(Duration.ofMillis(900)); // renewed every 300 ms
            q.enqueue("l", new Msg("l", 1), Duration.ZERO);
            CountDownLatch release = new CountDownLatch(1);
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(q, job -> {
                        job.progress(10, "started");
                        job.progress(50, "waiting"); // held back; nothing else is reported
                        release.await(30, TimeUnit.SECONDS);
                    })
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    JobProgress p = progress(q, "l");
                    return p != null && p.percent() == 50;
                });
                release.countDown();
                await().atMost(Duration.ofSeconds(20)).until(() -> q.get("l").isEmpty());
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(progressStored("l")).isFalse();
        }

        @Test
        void badProgress_isRefused() {
            DelayQueue<Msg> q = queue(Duration.ofMinutes(1));
            q.enqueue("b", new Msg("b", 1), Duration.ZERO);
            Job<Msg> job = q.claim(1).get(0);
            assertThatThrownBy(() -> job.progress(101))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("percent must be within [0, 100], not 101");
            assertThatThrownBy(() -> job.progress(1, "x".repeat(257)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("progress note is 257 UTF-8 bytes, over the limit of 256");
            assertThatThrownBy(() -> job.progress(1, "a\uD800"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("has an unpaired surrogate");
            assertThatThrownBy(() -> job.progress(1, null)).isInstanceOf(NullPointerException.class);
        }
    }
}
