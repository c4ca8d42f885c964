package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Concurrency per key" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeConcurrencyKeysExampleTest {

    /** A payload. */
    public record Order(long id, String tenant) {}

    @Test
    void readmeSnippet_compiles_andHoldsTheFourthJobOfATenant(UnifiedJedis redis) {
        DelayQueue<Order> orders =
                DelayQueue.builder(redis, "orders", Order.class).build();
        for (int i = 0; i < 3; i++) {
            orders.enqueueJob(NewJob.of(new Order(i, "acme")).withConcurrencyKey("tenant-acme"));
        }
        Order order = new Order(42, "acme");

        // README-BEGIN
        // at most 3 jobs of one tenant at once, across every worker; one key may have its own limit
        orders.concurrencyKeys().limit(3);
        orders.concurrencyKeys().limit("tenant-big", 10);
        orders.enqueueJob(NewJob.of(order).withConcurrencyKey("tenant-" + order.tenant()));
        // README-END

        List<Job<Order>> claimed = orders.claim(10);
        assertThat(claimed)
                .hasSize(3)
                .allMatch(j -> j.concurrencyKey().orElseThrow().equals("tenant-acme"));
        assertThat(orders.concurrencyKeys().held("tenant-acme")).isEqualTo(1);
        assertThat(orders.ack(claimed.get(0))).isTrue();
        assertThat(orders.claim(10)).extracting(j -> j.payload().id()).containsExactly(42L);
    }
}
