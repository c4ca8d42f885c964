package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The code of the README "Choosing a strategy" section, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeStrategyExampleTest {

    /** The reader's message type. */
    public record OrderEvent(String eventId, long orderId, long amountCents) {}

    /** Stands in for the reader's ledger. */
    static final class Ledger {
        final Map<Long, Long> balances = new ConcurrentHashMap<>();

        void apply(OrderEvent e) {
            balances.merge(e.orderId(), e.amountCents(), Long::sum);
        }
    }

    @Test
    void readmeSnippet_runs(RedisClient redis) throws Exception {
        Ledger ledger = new Ledger();
        List<OrderEvent> polled = List.of(new OrderEvent("e1", 42, 500), new OrderEvent("e2", 42, 250));
        // README:start
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                Deferrals deferrals = Deferrals.builder(redis, "orders-deferred")
                        .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(30), 2.0)
                                .withJitter(0.2))
                        .mode(DeferMode.ORDERED) // park behind the key, keep its order (the default)
                        .maxParked(10_000) // per key; over it: ParkedLimitException (or a dead letter)
                        .build()) {
            ConflictAwareHandler<OrderEvent> orders = ConflictAwareHandler.builder(
                            "order-events", OrderEvent.class, locks)
                    .key(e -> "order:" + e.orderId())
                    .messageId(OrderEvent::eventId) // dedup across redeliveries
                    .handler(ledger::apply) // runs under the order's lock
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(2); // runs parked events after their key's release, in this or any process

            for (OrderEvent e : polled) { // your consumer loop: Kafka, a Redis list, HTTP...
                Outcome outcome = orders.handle(e); // PROCESSED or DEFERRED, never blocks on a hot key
                // commit e to its source here
            }
            // README:end
            await().atMost(Duration.ofSeconds(10)).until(() -> ledger.balances.getOrDefault(42L, 0L) == 750);
        }
        assertThat(ledger.balances).containsEntry(42L, 750L);
    }
}
