package io.github.deferlock.example;

import io.github.deferlock.spring.DelayQueueListener;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Sends the emails of the {@code emails} queue when they fall due (here: logs them). */
@Component
public class EmailSender {

    private static final Logger LOG = LoggerFactory.getLogger(EmailSender.class);

    private final AtomicLong sent = new AtomicLong();

    /** Sends one email. */
    @DelayQueueListener(queue = "emails", concurrency = "2")
    public void send(Email email) {
        sent.incrementAndGet();
        LOG.info("sent '{}' to {}", email.subject(), email.to());
    }

    /** Emails sent so far. */
    public long sent() {
        return sent.get();
    }
}
