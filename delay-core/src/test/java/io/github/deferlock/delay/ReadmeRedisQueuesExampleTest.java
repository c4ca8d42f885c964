package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Many queues on one client" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeRedisQueuesExampleTest {

    /** A payload. */
    public record Email(String to, String subject) {}

    /** Another payload. */
    public record Invoice(String id, long cents) {}

    interface Mailer {
        void send(Email email);
    }

    interface Ledger {
        void post(Invoice invoice);
    }

    @Test
    void readmeSnippet_compilesAndBothWorkersRunOnOneSubscriber(UnifiedJedis redis, RedisServer server) {
        List<Object> done = new CopyOnWriteArrayList<>();
        Mailer mailer = done::add;
        Ledger ledger = done::add;

        // README-BEGIN
        RedisQueues queues = RedisQueues.on(redis); // one per client; close it after its workers
        DelayQueue<Email> emails = queues.builder("emails", Email.class).build();
        DelayQueue<Invoice> invoices =
                queues.builder("invoices", Invoice.class).maxAttempts(3).build();

        // both workers wake on notices over one pub/sub connection of the client's pool
        DelayQueueWorker<Email> mail = DelayQueueWorker.builder(emails, job -> mailer.send(job.payload()))
                .build()
                .start();
        DelayQueueWorker<Invoice> billing = DelayQueueWorker.builder(invoices, job -> ledger.post(job.payload()))
                .build()
                .start();
        // README-END

        emails.enqueue(new Email("ada@example.com", "Welcome!"), Duration.ofMillis(100));
        invoices.enqueue(new Invoice("inv-1", 4200), Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
        assertThat(server.subscriptionsPerConnection()).containsExactly(2);
        assertThat(mail.close(Duration.ofSeconds(10))).isTrue();
        assertThat(billing.close(Duration.ofSeconds(10))).isTrue();
        queues.close();
        assertThat(done).contains(new Email("ada@example.com", "Welcome!"), new Invoice("inv-1", 4200));
    }
}
