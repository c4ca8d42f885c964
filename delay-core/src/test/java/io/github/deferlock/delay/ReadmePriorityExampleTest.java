package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Priorities" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmePriorityExampleTest {

    /** A payload. */
    public record Invoice(long id) {}

    @Test
    void readmeSnippet_compiles_andClaimsTheHigherPriorityFirst(UnifiedJedis redis) {
        DelayQueue<Invoice> invoices =
                DelayQueue.builder(redis, "invoices", Invoice.class).build();
        invoices.enqueue(new Invoice(1)); // an older job of priority 0

        // README-BEGIN
        // among due jobs the highest priority is claimed first (0 = default, up to 9), equal ones in due order
        invoices.enqueueJob(NewJob.of(new Invoice(42)).withPriority(7));
        // a high priority job due later never holds back the jobs due now
        invoices.enqueueJob(NewJob.of(new Invoice(43), Duration.ofHours(1)).withPriority(9));
        // README-END

        List<Job<Invoice>> claimed = invoices.claim(10);
        assertThat(claimed).extracting(j -> j.payload().id()).containsExactly(42L, 1L);
        assertThat(claimed.get(0).priority()).isEqualTo(7);
    }
}
