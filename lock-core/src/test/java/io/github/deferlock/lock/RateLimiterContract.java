package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisDeployment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The rate limiter's basic contract, written once; {@link RateLimiterContractIT} runs it on a standalone server,
 * a cluster and a sentinel group.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RateLimiterContract {

    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private RedisLocks locks;

    /** Starts the topology under test. */
    abstract RedisDeployment start();

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
        locks = RedisLocks.builder(redis).build();
    }

    @AfterAll
    final void stopDeployment() {
        locks.close();
        redis.close();
        deployment.close();
    }

    @BeforeEach
    final void flush() {
        deployment.flushAll();
    }

    @Test
    void tryAcquire_burstThenRefused_withRetryAfterOfOneEmissionInterval() {
        RateLimiter limiter = locks.rateLimiter(
                "burst", RateLimit.of(10, Duration.ofSeconds(1)).withBurst(3));
        assertThat(limiter.key()).isEqualTo("lock:{burst}:rate");
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire()).isEqualTo(new RateAttempt(true, Duration.ZERO));
        }
        RateAttempt refused = limiter.tryAcquire();
        assertThat(refused.granted()).isFalse();
        assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void tryAcquire_atRetryAfter_granted_andBeforeIt_refused() throws InterruptedException {
        RateLimiter limiter = locks.rateLimiter(
                "truth", RateLimit.of(5, Duration.ofSeconds(1)).withBurst(1));
        assertThat(limiter.tryAcquire().granted()).isTrue();
        RateAttempt first = limiter.tryAcquire();
        assertThat(first.granted()).isFalse();
        assertThat(first.retryAfter())
                .isGreaterThan(Duration.ofMillis(150))
                .isLessThanOrEqualTo(Duration.ofMillis(200));
        // well before the slot: still refused, with a shorter retryAfter
        TimeUnit.MILLISECONDS.sleep(50);
        RateAttempt early = limiter.tryAcquire();
        assertThat(early.granted()).isFalse();
        assertThat(early.retryAfter()).isLessThan(first.retryAfter());
        // at the slot the server named: granted
        TimeUnit.NANOSECONDS.sleep(early.retryAfter().toNanos());
        assertThat(limiter.tryAcquire().granted()).isTrue();
    }

    @Test
    void tryAcquireWait_sleepsUntilTheSlot_orRefusesAtOnceWhenTheSlotIsPastTheWait() {
        RateLimiter limiter = locks.rateLimiter(
                "wait", RateLimit.of(10, Duration.ofSeconds(1)).withBurst(1));
        assertThat(limiter.tryAcquire().granted()).isTrue();

        long start = System.nanoTime();
        RateAttempt tooShort = limiter.tryAcquire(Duration.ofMillis(20));
        assertThat(tooShort.granted()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(60));

        start = System.nanoTime();
        assertThat(limiter.tryAcquire(Duration.ofSeconds(2)).granted()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(40));
    }

    @Test
    void withRateLimit_runsTheBody_thenThrowsRateLimitedNamingKeyLimitAndRetryAfter() {
        RateLimit limit = RateLimit.of(2, Duration.ofSeconds(10)).withBurst(1);
        RateLimiter limiter = locks.rateLimiter("calls", limit);
        AtomicInteger runs = new AtomicInteger();
        assertThat(limiter.withRateLimit(Duration.ZERO, runs::incrementAndGet)).isEqualTo(1);
        assertThatThrownBy(() -> limiter.withRateLimit(Duration.ofMillis(10), runs::incrementAndGet))
                .isInstanceOfSatisfying(RateLimitedException.class, e -> {
                    assertThat(e.key()).isEqualTo("calls");
                    assertThat(e.limit()).isEqualTo(limit);
                    assertThat(e.retryAfter()).isGreaterThan(Duration.ofSeconds(4));
                    assertThat(e.holderTtl()).contains(e.retryAfter());
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e).isInstanceOf(LockConflictException.class);
                })
                .hasMessageStartingWith("rate limiter 'calls' has no slot (limit: 2 per 10 s (burst 1)");
        assertThat(runs).hasValue(1);
    }

    @Test
    void tryAcquire_nameUsedWithASlowerLimitBefore_theFasterLimitAppliesWithinOneOfItsSlots() {
        RateLimiter slow = locks.rateLimiter("changed", RateLimit.of(1, Duration.ofSeconds(30)));
        RateLimiter fast = locks.rateLimiter(
                "changed", RateLimit.of(100, Duration.ofSeconds(1)).withBurst(1));
        assertThat(slow.tryAcquire().granted()).isTrue();
        assertThat(slow.tryAcquire().retryAfter()).isGreaterThan(Duration.ofSeconds(29));
        // the slow limit's schedule (30 s ahead) is cut to what the fast limit could leave: one slot, 10 ms
        RateAttempt first = fast.tryAcquire();
        assertThat(first.granted() || first.retryAfter().compareTo(Duration.ofMillis(10)) <= 0)
                .as("granted, or a slot within 10 ms: %s", first)
                .isTrue();
        assertThat(fast.tryAcquire(Duration.ofSeconds(1)).granted()).isTrue();
    }

    @Test
    void tryAcquire_idleLimiter_leavesNoKey() {
        RateLimiter limiter = locks.rateLimiter(
                "idle", RateLimit.of(20, Duration.ofSeconds(1)).withBurst(2));
        assertThat(limiter.tryAcquire().granted()).isTrue();
        assertThat(redis.pttl(limiter.key())).isBetween(1L, 51L);
        await().alias("idle limiter key expired")
                .atMost(Duration.ofSeconds(5))
                .until(() -> !redis.exists(limiter.key()));
    }

    @Test
    void tryAcquire_sameNameAsALock_leavesTheLockAlone() {
        DistributedLock lock = locks.get("shared");
        RateLimiter limiter = locks.rateLimiter("shared", RateLimit.of(10, Duration.ofSeconds(1)));
        assertThat(lock.tryLock()).isTrue();
        try {
            assertThat(limiter.tryAcquire().granted()).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void tryAcquire_keyHoldingAnotherType_failsNamingTheKey() {
        RateLimiter limiter = locks.rateLimiter("odd", RateLimit.of(10, Duration.ofSeconds(1)));
        redis.set(limiter.key(), "not a number");
        assertThatThrownBy(limiter::tryAcquire)
                .isInstanceOf(LockException.class)
                .hasMessageContaining("rate limiter 'odd'")
                .hasMessageContaining("not a rate limiter state");
    }
}
