package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Progress" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeProgressExampleTest {

    /** A payload. */
    public record Export(int parts) {}

    /** Writes parts; the second one waits until the test has read the progress of the first. */
    private static final class Exporter {
        final CountDownLatch firstDone = new CountDownLatch(1);
        final CountDownLatch goOn = new CountDownLatch(1);

        void write(Export export, int part) throws InterruptedException {
            if (part == 2) {
                firstDone.countDown();
                assertThat(goOn.await(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    @Test
    void readmeSnippet_compiles_andShowsTheProgress(UnifiedJedis redis) throws Exception {
        DelayQueue<Export> exports =
                DelayQueue.builder(redis, "exports", Export.class).build();
        exports.enqueue("export-1", new Export(4), Duration.ZERO);
        Exporter exporter = new Exporter();

        // README-BEGIN
        DelayQueueWorker<Export> worker = DelayQueueWorker.builder(exports, job -> {
                    for (int part = 1; part <= job.payload().parts(); part++) {
                        exporter.write(job.payload(), part);
                        // at most one small write per 250 ms; shown by `deferlock job get` and the dashboard
                        job.progress(100 * part / job.payload().parts(), "part " + part);
                    }
                })
                .build()
                .start();
        // README-END
        try {
            assertThat(exporter.firstDone.await(30, TimeUnit.SECONDS)).isTrue();
            JobProgress p = exports.get("export-1").orElseThrow().progress().orElseThrow();
            assertThat(p.percent()).isEqualTo(25);
            assertThat(p.note()).isEqualTo("part 1");
            exporter.goOn.countDown();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> exports.get("export-1").isEmpty());
        } finally {
            worker.close();
        }
    }
}
