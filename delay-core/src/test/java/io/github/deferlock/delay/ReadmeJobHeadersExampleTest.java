package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Job headers and events" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeJobHeadersExampleTest {

    /** A payload. */
    public record Email(String to, String subject) {}

    interface Mailer {
        void send(Email email, String traceparent);
    }

    interface Tracing {
        String currentTraceparent();
    }

    @Test
    void readmeSnippet_compilesCarriesTheHeadersAndCountsTheEnqueue(UnifiedJedis redis) throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        Mailer mailer = (email, traceparent) -> sent.add(email.to() + " " + traceparent);
        Tracing tracing = () -> "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        LongAdder enqueued = new LongAdder();

        // README-BEGIN
        DelayQueue<Email> emails = DelayQueue.builder(redis, "emails", Email.class)
                .headers(() -> Map.of("traceparent", tracing.currentTraceparent())) // on the enqueuing thread
                .listener(new QueueListener() {
                    @Override
                    public void onEnqueued(String queue, String jobId, Instant dueAt) {
                        enqueued.increment(); // a listener that throws is logged and ignored
                    }
                })
                .build();

        emails.enqueueJob(NewJob.of(new Email("ada@example.com", "Welcome!"), Duration.ofSeconds(1))
                .withHeader("tenant", "acme")); // a job's own headers win over the supplier's

        DelayQueueWorker<Email> worker = DelayQueueWorker.builder(
                        emails, job -> mailer.send(job.payload(), job.headers().get("traceparent")))
                .build()
                .start();
        // README-END

        await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 1);
        assertThat(worker.close(Duration.ofSeconds(30))).isTrue();
        assertThat(sent).containsExactly("ada@example.com 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(enqueued.sum()).isEqualTo(1);
    }
}
