package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class ScratchPermitWakeIT {
    @Test
    void sameProcessRelease_wakesWaiter(RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedPermits p = locks.permits("x", 2);
            PermitLease a = p.acquire(Duration.ZERO);
            PermitLease b = p.acquire(Duration.ZERO);
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                Optional<PermitLease> l = p.tryAcquire(Duration.ofSeconds(10));
                long t = System.nanoTime();
                l.ifPresent(PermitLease::release);
                return t;
            });
            Thread.sleep(300);
            long released = System.nanoTime();
            a.release();
            long got = waiter.get(20, TimeUnit.SECONDS);
            System.out.println("WAKE ms " + (got - released) / 1_000_000);
            assertThat(Duration.ofNanos(got - released)).isLessThan(Duration.ofSeconds(2));
            b.release();
        }
    }
}
