package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * {@link LockLease#extend}, {@link LockLease#releaseAfter} (what ShedLock's provider needs: lockAtMostFor
 * extended, lockAtLeastFor kept) and a hold with a lease that nobody released: it must not block this JVM's
 * other contenders once Redis no longer keeps its key.
 */
@ExtendWith(RedisExtension.class)
final class LeaseExtendIT {

    @Test
    void extend_setsTheNewLeaseOnTheKey(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            LockLease lease = locks.get("report").acquire(Duration.ZERO, Duration.ofSeconds(1));
            assertThat(lease.extend(Duration.ofSeconds(60))).isTrue();
            assertThat(redis.pttl(lease.key())).isGreaterThan(30_000L);
            assertThat(lease.extend(Duration.ofMillis(500)))
                    .as("shorter is allowed too")
                    .isTrue();
            assertThat(redis.pttl(lease.key())).isLessThanOrEqualTo(500L);
            assertThat(lease.isHeld()).isTrue();
            lease.release();
            assertThat(redis.exists(lease.key())).isFalse();
        }
    }

    @Test
    void extend_ofAHoldWhoseKeyIsGone_returnsFalseAndTheHoldIsLost(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            LockLease lease = locks.get("report").acquire(Duration.ZERO, Duration.ofSeconds(30));
            redis.del(lease.key());
            assertThat(lease.extend(Duration.ofSeconds(30))).isFalse();
            assertThat(lease.isHeld()).isFalse();
            assertThat(redis.exists(lease.key()))
                    .as("extend never creates the key")
                    .isFalse();
            assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void extend_ofAWatchdogHold_orWithABadLease_isRefused(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            try (LockLease renewed = locks.get("a").acquire(Duration.ZERO)) {
                assertThatThrownBy(() -> renewed.extend(Duration.ofSeconds(5)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("lock:{a}")
                        .hasMessageContaining("watchdog");
            }
            try (LockLease fixed = locks.get("b").acquire(Duration.ZERO, Duration.ofSeconds(5))) {
                assertThatThrownBy(() -> fixed.extend(Duration.ofMillis(10)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("10 ms");
                assertThatThrownBy(() -> fixed.releaseAfter(Duration.ofDays(400)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("400 days");
            }
        }
    }

    @Test
    void releaseAfter_keepsTheKeyFromOtherOwnersUntilThenOnly(RedisClient redis) {
        try (RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks other = RedisLocks.builder(redis).build()) {
            LockLease lease = mine.get("nightly").acquire(Duration.ZERO, Duration.ofMinutes(5));
            lease.releaseAfter(Duration.ofMillis(800));
            assertThat(lease.isHeld()).isFalse();
            assertThat(redis.pttl(lease.key())).isBetween(1L, 800L);
            assertThat(other.get("nightly").tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                    .as("kept for 800 ms")
                    .isEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Optional<LockLease> next = other.get("nightly").tryAcquire(Duration.ZERO, Duration.ofSeconds(5));
                next.ifPresent(LockLease::release);
                return next.isPresent();
            });
            lease.releaseAfter(Duration.ofSeconds(1)); // a second call does nothing
        }
    }

    @Test
    void releaseAfter_zero_isARelease(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            LockLease lease = locks.get("nightly").acquire(Duration.ZERO, Duration.ofMinutes(5));
            lease.releaseAfter(Duration.ZERO);
            assertThat(redis.exists(lease.key())).isFalse();
        }
    }

    @Test
    void aHoldNobodyReleased_blocksThisJvmOnlyWhileRedisKeepsItsKey(RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            LockLease forgotten = locks.get("job").acquire(Duration.ZERO, Duration.ofMinutes(10));
            // another thread of the same process: refused while the key is held in Redis
            assertThat(CompletableFuture.supplyAsync(
                                    () -> locks.get("job").tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                            .get())
                    .isEmpty();
            redis.del(forgotten.key()); // its lease ran out, or an operator removed it
            Optional<LockLease> next = CompletableFuture.supplyAsync(
                            () -> locks.get("job").tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                    .get();
            assertThat(next).as("the forgotten hold no longer blocks this JVM").isPresent();
            assertThat(next.get().fencingToken()).isGreaterThan(forgotten.fencingToken());
            assertThat(forgotten.isHeld()).isFalse();
            forgotten.release(); // ended already: nothing to do, and it leaves the new hold alone
            assertThat(next.get().isHeld()).isTrue();
            assertThat(redis.exists(next.get().key())).isTrue();
            next.get().release();
        }
    }
}
