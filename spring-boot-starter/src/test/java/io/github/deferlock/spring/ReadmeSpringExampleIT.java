package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The code of the README "Spring Boot" section, verbatim between the markers. */
@SpringBootTest(
        classes = ReadmeSpringExampleIT.App.class,
        properties = "deferlock.queues.emails.payload-type=io.github.deferlock.spring.ReadmeSpringExampleIT$Email")
@DirtiesContext
final class ReadmeSpringExampleIT {

    static final RedisServer SERVER = RedisServer.start();

    public record OrderEvent(long orderId, String kind) {}

    public record Email(String to, String subject) {}

    /** Stands in for the reader's mail client. */
    @Service
    static class Mailer {
        final List<Email> sent = new CopyOnWriteArrayList<>();

        void send(Email e) {
            sent.add(e);
        }
    }

    // README:start
    @Service
    static class Orders {
        private final DelayQueue<Email> emails; // from deferlock.queues.emails.payload-type

        Orders(DelayQueue<Email> emails) {
            this.emails = emails;
        }

        @WithLock(key = "'order:' + #event.orderId()", onConflict = LockStrategy.DEFER)
        public LockOutcome<String> apply(OrderEvent event) {
            // runs under the order's lock, now or later in whichever instance runs the deferral worker
            if (event.kind().equals("paid")) {
                emails.enqueue(new Email("ada@example.com", "Payment received"), Duration.ofSeconds(1));
            }
            return LockOutcome.done("applied " + event.kind());
        }
    }

    @Service
    static class EmailSender {
        private final Mailer mailer;

        EmailSender(Mailer mailer) {
            this.mailer = mailer;
        }

        @DelayQueueListener(queue = "emails", concurrency = "4")
        public void send(Email email) { // throw to retry with backoff; dead letters after max-attempts
            mailer.send(email);
        }
    }
    // README:end

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Mailer.class, Orders.class, EmailSender.class})
    static class App {}

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", SERVER::host);
        registry.add("spring.data.redis.port", SERVER::port);
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @Autowired
    Orders orders;

    @Autowired
    Mailer mailer;

    @Test
    void readmeSnippet_runs() {
        LockOutcome<String> outcome = orders.apply(new OrderEvent(42, "paid"));
        assertThat(outcome.isDone()).isTrue();
        assertThat(outcome.value()).isEqualTo("applied paid");
        await().atMost(Duration.ofSeconds(30)).until(() -> mailer.sent.size() == 1);
    }
}
