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

/** The README "Delay queue" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeDelayQueueExampleTest {

    /** A payload. */
    public record Email(String to, String subject) {}

    interface Mailer {
        void send(Email email);
    }

    @Test
    void readmeSnippet_compilesAndDeliversBothEmails(UnifiedJedis redis) {
        List<Email> sent = new CopyOnWriteArrayList<>();
        Mailer mailer = sent::add;

        // README-BEGIN
        DelayQueue<Email> emails = DelayQueue.builder(redis, "emails", Email.class)
                .visibilityTimeout(Duration.ofMinutes(1)) // redelivered a minute after its worker died
                .maxAttempts(5) // then it goes to the dead letters
                .backoff(Backoff.schedule(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(30)))
                .build();

        emails.enqueue(new Email("ada@example.com", "Welcome!"), Duration.ofSeconds(2)); // due in 2 s
        emails.enqueue("reset-42", new Email("bob@example.com", "Reset"), Duration.ZERO); // idempotent id

        DelayQueueWorker<Email> worker = DelayQueueWorker.builder(emails, job -> mailer.send(job.payload()))
                .concurrency(8) // returning acks, throwing retries with the backoff
                .build()
                .start();
        // README-END

        await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2);
        assertThat(worker.close(Duration.ofSeconds(30))).isTrue();
        assertThat(sent)
                .containsExactly(new Email("bob@example.com", "Reset"), new Email("ada@example.com", "Welcome!"));
    }
}
