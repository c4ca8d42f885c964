package io.github.deferlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The README's ShedLock snippet, verbatim between the markers, and what the provider adds over ShedLock's own
 * Redis providers: a fencing token per run, rising, shared with deferlock's lock of the same name.
 */
@ExtendWith(RedisExtension.class)
final class ReadmeShedLockExampleIT {

    /** Stands in for the reader's store, which refuses a write with an older fencing token than the last. */
    static final class Ledger {
        final List<Long> tokens = new ArrayList<>();

        void close(String day, long fencingToken) {
            assertThat(tokens).allSatisfy(t -> assertThat(fencingToken).isGreaterThan(t));
            tokens.add(fencingToken);
        }
    }

    @Test
    void readmeSnippet_runsTheTaskOnceAPassWithARisingFencingToken(RedisClient redis) {
        Ledger ledger = new Ledger();
        for (int i = 0; i < 3; i++) {
            // README:start
            RedisLocks locks = RedisLocks.builder(redis).build(); // one per client, closed with the application
            DeferlockLockProvider provider = new DeferlockLockProvider(locks); // the LockProvider bean
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
            executor.executeWithLock(
                    (Runnable) () ->
                            ledger.close("2026-11-26", provider.fencingToken().orElseThrow()),
                    new LockConfiguration(Instant.now(), "close-day", Duration.ofMinutes(10), Duration.ZERO));
            // README:end
            assertThat(provider.fencingToken()).as("no lock outside the task").isEmpty();
            locks.close();
        }
        assertThat(ledger.tokens).hasSize(3);
        assertThat(redis.exists("lock:{close-day}")).isFalse();
    }

    @Test
    void aTaskRunningUnderDeferlocksOwnLock_isSkippedByShedLock(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DeferlockLockProvider provider = new DeferlockLockProvider(locks);
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
            List<String> ran = new ArrayList<>();
            boolean[] inside = new boolean[1];
            locks.get("close-day").withLock(() -> {
                // another thread runs the scheduled task meanwhile: the same name is the same lock
                Thread t = new Thread(() -> executor.executeWithLock(
                        (Runnable) () -> ran.add("task"),
                        new LockConfiguration(Instant.now(), "close-day", Duration.ofMinutes(10), Duration.ZERO)));
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                inside[0] = true;
            });
            assertThat(inside[0]).isTrue();
            assertThat(ran)
                    .as("skipped while deferlock's own lock of the name was held")
                    .isEmpty();
        }
    }
}
