package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Pause and resume" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmePauseExampleTest {

    /** A payload. */
    public record Email(String to, String subject) {}

    @Test
    void readmeSnippet_compiles_andPauseHoldsJobsUntilResume(UnifiedJedis redis) {
        List<Email> sent = new CopyOnWriteArrayList<>();
        DelayQueue<Email> emails =
                DelayQueue.builder(redis, "emails", Email.class).build();
        try (DelayQueueWorker<Email> worker = DelayQueueWorker.builder(emails, job -> sent.add(job.payload()))
                .build()
                .start()) {
            // README-BEGIN
            emails.pause(); // every worker of every process stops claiming; running jobs finish
            emails.enqueue(new Email("ada@example.com", "Welcome!")); // enqueues go on, the job waits
            boolean paused = emails.stats().paused(); // true; also isPaused(), `deferlock queue stats emails`

            emails.resume(); // a notice wakes the workers: they claim at once
            // README-END
            assertThat(paused).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 1);
            assertThat(worker.isRunning()).isTrue();
        }
    }
}
