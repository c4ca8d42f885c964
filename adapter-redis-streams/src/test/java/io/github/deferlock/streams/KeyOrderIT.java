package io.github.deferlock.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.testing.KeyOrderProbe;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 26: by default (the order key is the handler's lock key) and with {@code concurrency(8)}, the entries of one key run one at a time in
 * stream order, a retried entry holding back the later entries of its key, while different keys run in parallel.
 */
@ExtendWith(RedisExtension.class)
final class KeyOrderIT {
    private static final int KEYS = 100;
    private static final int PER_KEY = 20;

    @Test
    void entriesOfOneKey_runInStreamOrder_andKeysRunInParallel(RedisServer server) {
        KeyOrderProbe probe = new KeyOrderProbe();
        try (Fixture f = new Fixture(server.hostAndPort(), Duration.ZERO)) {
            // four keys fail their 4th entry once: the retry must hold back the key's later entries
            ConflictAwareHandler<Order> ordered = ConflictAwareHandler.builder("ordered", Order.class, f.locks)
                    .key(o -> "order:" + o.key())
                    .handler(o -> probe.handle(o.id(), 2, o.id().matches("k(0|25|50|75)-3")))
                    .onConflict(OnConflict.THROW)
                    .build();
            StreamProducer producer = StreamProducer.builder(f.redis, "s").build();
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (int k = 0; k < KEYS; k++) {
                    producer.add(new Order("k" + k + "-" + seq, "k" + k));
                }
            }
            try (StreamConsumer<Order> c = StreamConsumer.builder(f.redis, "s", "g", Order.class, ordered)
                    .concurrency(8)
                    .retryBackoff(Backoff.fixed(Duration.ofSeconds(1)))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> probe.completed() == KEYS * PER_KEY && f.pending("s") == 0);
                assertThat(c.isRunning()).isTrue();
            }
            System.out.println("KeyOrderIT (streams, concurrency 8, " + KEYS + " keys): " + probe);
            assertThat(probe.failedFirstRuns()).isEqualTo(4);
            probe.assertKeysInOrderAndParallel(4); // of 8 handler threads
        }
    }
}
