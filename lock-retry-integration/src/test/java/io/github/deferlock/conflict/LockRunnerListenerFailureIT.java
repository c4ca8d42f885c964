package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;

/**
 * Issue 14, defect 4: a {@link ConflictListener} callback that throws never leaves the lock held — for each
 * callback {@link LockRunner} calls, the Redis key is gone afterwards and the body's result (or the
 * conflict) still reaches the caller.
 */
@ExtendWith(RedisExtension.class)
final class LockRunnerListenerFailureIT {

    private static ConflictListener throwingIn(String what) {
        return new ConflictListener() {
            private void fail(String callback) {
                if (callback.equals(what)) {
                    throw new IllegalStateException("listener broke in " + what);
                }
            }

            @Override
            public void onAcquired(String key, Duration waited) {
                fail("onAcquired");
            }

            @Override
            public void onConflict(String key, OnConflict strategy, Optional<Duration> holderTtl) {
                fail("onConflict");
            }

            @Override
            public void onRetried(String key, int nextAttempt, Duration delay) {
                fail("onRetried");
            }

            @Override
            public void onProcessed(String key, Duration held) {
                fail("onProcessed");
            }

            @Override
            public void onLockLost(String key, long fencingToken) {
                fail("onLockLost");
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"onAcquired", "onConflict", "onRetried", "onProcessed", "onLockLost"})
    void listenerThrows_lockIsNotLeftHeld(String callback, RedisClient redis) {
        String key = "lr-" + callback;
        String redisKey = "lock:{" + key + "}";
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisLocks others = RedisLocks.builder(redis).build()) {
            LockRunner runner = LockRunner.builder(locks)
                    .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(20)), 50, Duration.ofSeconds(3)))
                    .listener(throwingIn(callback))
                    .build();
            switch (callback) {
                case "onConflict", "onRetried" -> {
                    // a rival holds the key for a moment: the runner conflicts, retries, then gets it
                    LockLease rival = others.get(key).acquire(Duration.ZERO, Duration.ofMillis(100));
                    Object result = runner.withLock(key, OnConflict.SLEEP_RETRY, () -> "done");
                    assertThat(result).isEqualTo("done");
                    assertThat(rival.isHeld()).isFalse();
                    try {
                        rival.release(); // its lease ran out in Redis; this frees the rival's local state
                    } catch (LockLostException expected) {
                        // as expected: it expired
                    }
                }
                case "onLockLost" -> {
                    try {
                        runner.withLock(key, OnConflict.THROW, () -> {
                            redis.del(redisKey); // the lock is lost while the body runs
                            return "done";
                        });
                    } catch (RuntimeException expected) {
                        assertThat(expected).isInstanceOf(LockLostException.class);
                    }
                }
                default -> {
                    Object result = null;
                    try {
                        result = runner.withLock(key, OnConflict.THROW, () -> "done");
                    } catch (RuntimeException e) {
                        // a listener failure may reach the caller only if the lock was released anyway
                    }
                    assertThat(result)
                            .as("the body's result despite the listener")
                            .isEqualTo("done");
                }
            }
            DistributedLock lock = locks.get(key);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(redis.exists(redisKey)).as("the key is gone").isFalse();
            assertThat(others.get(key).tryLock())
                    .as("another client can take the lock")
                    .isTrue();
            others.get(key).unlock();
        }
    }
}
