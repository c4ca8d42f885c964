package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class ReentryAfterExpiryIT {

    @Test
    void reentry_afterTheExplicitLeaseRanOut_isRefusedAsLost(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("expiring");
            assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
            await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
            assertThatThrownBy(lock::tryLock).isInstanceOf(LockLostException.class);
            assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);
        }
    }
}
