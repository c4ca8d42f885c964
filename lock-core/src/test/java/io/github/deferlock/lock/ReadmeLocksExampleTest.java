package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** The code of the README "Locks" section, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeLocksExampleTest {

    /** Stands in for the reader's protected resource. */
    static final class Orders {
        final List<Long> fencingTokens = new ArrayList<>();

        String ship(long order, long fencingToken) {
            fencingTokens.add(fencingToken);
            return "shipped " + order;
        }
    }

    @Test
    void readmeSnippet_runs(RedisClient redis) {
        Orders orders = new Orders();
        // README:start
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("lock:").build()) {
            DistributedLock lock = locks.get("order:42");

            // thread-bound and reentrant; the watchdog renews the 30 s lease while you hold it
            if (lock.tryLock(Duration.ofSeconds(2))) {
                try {
                    orders.ship(42, lock.fencingToken()); // the store rejects tokens older than the last it saw
                } finally {
                    lock.unlock();
                }
            }

            // run a body under the lock; LockConflictException when someone else holds it
            String receipt = lock.withLock(() -> orders.ship(42, lock.fencingToken()));

            // a handle that any thread may release: async code, virtual threads
            try (LockLease lease = lock.acquire(Duration.ofSeconds(2))) {
                orders.ship(42, lease.fencingToken());
            }
            // README:end
            assertThat(receipt).isEqualTo("shipped 42");
        }
        assertThat(orders.fencingTokens).hasSize(3); // each acquisition reserves 8 tokens: each past the last block
        assertThat(orders.fencingTokens.get(1)).isGreaterThan(orders.fencingTokens.get(0) + 7);
        assertThat(orders.fencingTokens.get(2)).isGreaterThan(orders.fencingTokens.get(1) + 7);
        assertThat(redis.exists("lock:{order:42}")).isFalse();
    }
}
