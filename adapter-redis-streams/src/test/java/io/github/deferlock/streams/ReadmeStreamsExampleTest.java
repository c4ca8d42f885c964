package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The code of the README "Consuming from a broker" section (Redis Streams), verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeStreamsExampleTest {

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
    void readmeSnippet_runs(RedisClient redis) {
        Ledger ledger = new Ledger();
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                Deferrals deferrals =
                        Deferrals.builder(redis, "orders-deferred").build()) {
            ConflictAwareHandler<OrderEvent> orders = ConflictAwareHandler.builder(
                            "order-events", OrderEvent.class, locks)
                    .key(e -> "order:" + e.orderId())
                    .messageId(OrderEvent::eventId)
                    .handler(ledger::apply)
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(2);
            // README:start
            StreamProducer producer = StreamProducer.builder(redis, "order-events")
                    .maxLen(1_000_000) // XADD ... MAXLEN ~ 1000000: a bounded stream
                    .build();
            producer.add(new OrderEvent("e1", 42, 500)); // the message as JSON in the field "payload"

            try (StreamConsumer<OrderEvent> consumer = StreamConsumer.builder(
                            redis, "order-events", "billing", OrderEvent.class, orders)
                    .concurrency(8) // handler threads; virtualThreads(true) on Java 21+
                    .orderKey(e -> "order:" + e.orderId()) // one key's entries one at a time, in stream order
                    .claimIdle(Duration.ofSeconds(60)) // a dead consumer's entries come back after this
                    .maxAttempts(5) // a failing entry then goes to the stream "order-events:dead"
                    .build()
                    .start()) { // creates the group if needed; XACK only once processed or deferred
                // ... the application runs; leaving the block closes the consumer
                // README:end
                producer.add(new OrderEvent("e2", 42, 250));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> consumer.isRunning() && ledger.balances.getOrDefault(42L, 0L) == 750);
            } // close(): stop reading, finish and ack running entries; the rest is delivered again
        }
        assertThat(ledger.balances).containsEntry(42L, 750L);
    }
}
