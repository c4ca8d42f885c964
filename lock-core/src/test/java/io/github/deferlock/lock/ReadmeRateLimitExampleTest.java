package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The README "Rate limits" snippet, verbatim between the markers. */
@ExtendWith(RedisExtension.class)
final class ReadmeRateLimitExampleTest {

    /** A rate-limited dependency. */
    static final class Provider {
        final AtomicInteger calls = new AtomicInteger();

        String charge(long order) {
            calls.incrementAndGet();
            return "charged " + order;
        }
    }

    @Test
    void readmeSnippet_compiles_andGrantsWithinTheLimit(UnifiedJedis redis) {
        Provider provider = new Provider();
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            // README-BEGIN
            RateLimiter payments = locks.rateLimiter("payments", RateLimit.of(100, Duration.ofSeconds(1)));
            RateAttempt attempt = payments.tryAcquire(); // one start now or not; never waits
            if (!attempt.granted()) {
                System.out.println("next slot in " + attempt.retryAfter()); // the server's figure
            }
            // waits up to 500 ms for a slot, else RateLimitedException (a LockConflictException)
            String receipt = payments.withRateLimit(Duration.ofMillis(500), () -> provider.charge(42));
            // README-END
            assertThat(attempt.granted()).isTrue();
            assertThat(receipt).isEqualTo("charged 42");
            assertThat(provider.calls).hasValue(1);
            assertThat(redis.exists("lock:{payments}:rate")).isTrue();
        }
    }
}
