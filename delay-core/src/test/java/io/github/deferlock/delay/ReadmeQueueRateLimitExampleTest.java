package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Rate limit per queue" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeQueueRateLimitExampleTest {

    /** A payload. */
    public record Email(String to, String subject) {}

    @Test
    void readmeSnippet_compiles_andSetsReadsAndRemovesTheLimit(UnifiedJedis redis) {
        DelayQueue<Email> emails =
                DelayQueue.builder(redis, "emails", Email.class).build();
        // README-BEGIN
        emails.rateLimit(QueueRateLimit.of(100, Duration.ofSeconds(1))); // every worker of every process
        Optional<QueueRateLimit> limit = emails.rateLimit(); // 100 per 1 s (burst 5)
        emails.removeRateLimit(); // full speed again: sleeping workers are woken
        // README-END
        assertThat(limit).hasValueSatisfying(l -> assertThat(l).hasToString("100 per 1 s (burst 5)"));
        assertThat(emails.rateLimit()).isEmpty();
    }
}
