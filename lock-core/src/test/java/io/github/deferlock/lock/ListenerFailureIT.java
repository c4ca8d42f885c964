package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;

/**
 * Issue 14, defect 4: a {@link LockListener} that throws (an unchecked exception or an {@link Error}) never
 * leaves a lock held: after each callback throws, the Redis key is gone and the lock can be taken again.
 */
@ExtendWith(RedisExtension.class)
final class ListenerFailureIT {

    /** A listener that throws from one callback: {@code what} names it, {@code error} picks the throwable. */
    private static LockListener throwingIn(String what, boolean error) {
        Supplier<RuntimeException> unchecked = () -> new IllegalStateException("listener broke in " + what);
        return new LockListener() {
            private void fail(String callback) {
                if (callback.equals(what)) {
                    if (error) {
                        throw new AssertionError("listener error in " + what);
                    }
                    throw unchecked.get();
                }
            }

            @Override
            public void onAcquired(String key, long fencingToken, Duration waited) {
                fail("onAcquired");
            }

            @Override
            public void onConflict(String key, Optional<Duration> holderTtl) {
                fail("onConflict");
            }

            @Override
            public void onReleased(String key, Duration held) {
                fail("onReleased");
            }

            @Override
            public void onLost(String key, long fencingToken, Throwable cause) {
                fail("onLost");
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"onAcquired", "onConflict", "onReleased", "onLost"})
    void listenerThrowsUnchecked_keyIsGoneAfterwards(String callback, RedisClient redis) {
        run(callback, false, redis);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"onAcquired", "onConflict", "onReleased", "onLost"})
    void listenerThrowsError_keyIsGoneAfterwards(String callback, RedisClient redis) {
        run(callback, true, redis);
    }

    private static void run(String callback, boolean error, RedisClient redis) {
        String name = "lf-" + callback + "-" + error;
        String key = "lock:{" + name + "}";
        try (RedisLocks locks = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(600))
                        .listener(throwingIn(callback, error))
                        .build();
                RedisLocks other = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get(name);
            switch (callback) {
                case "onAcquired", "onReleased" -> {
                    // thread-bound, handle and withLock forms: whatever the listener throws, nothing stays held
                    for (int form = 0; form < 3; form++) {
                        int f = form;
                        try {
                            if (f == 0) {
                                if (lock.tryLock()) {
                                    lock.unlock();
                                }
                            } else if (f == 1) {
                                lock.acquire(Duration.ZERO).close();
                            } else {
                                lock.withLock(() -> {});
                            }
                        } catch (RuntimeException | AssertionError expected) {
                            // the listener's own failure may reach the caller; the lock must not stay held
                        }
                        assertThat(lock.isHeldByCurrentThread())
                                .as("form %d", f)
                                .isFalse();
                        assertThat(lock.holdCount()).as("form %d", f).isZero();
                        assertThat(redis.exists(key))
                                .as("form %d: key left in Redis", f)
                                .isFalse();
                    }
                }
                case "onConflict" -> {
                    DistributedLock rival = other.get(name);
                    assertThat(rival.tryLock()).isTrue();
                    try {
                        lock.tryLock(Duration.ofMillis(50));
                    } catch (RuntimeException | AssertionError expected) {
                        // ignored: the point is what is left behind
                    }
                    assertThat(lock.isHeldByCurrentThread()).isFalse();
                    rival.unlock();
                    assertThat(redis.exists(key)).isFalse();
                }
                default -> { // onLost: the key is deleted under the holder, the watchdog reports the loss
                    lock.lock();
                    redis.del(key);
                    await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
                    assertThatThrownBy(lock::unlock).isInstanceOfAny(LockLostException.class, AssertionError.class);
                    assertThat(redis.exists(key)).isFalse();
                    // the watchdog survived the listener's failure: a new hold is still renewed past its lease
                    lock.lock();
                    await().pollInSameThread()
                            .during(Duration.ofMillis(1500))
                            .atMost(Duration.ofSeconds(5))
                            .until(lock::isHeldByCurrentThread);
                    assertThat(redis.exists(key)).isTrue();
                    lock.unlock();
                    assertThat(redis.exists(key)).isFalse();
                }
            }
            // and the lock can be taken again, by another client too
            DistributedLock rival = other.get(name);
            assertThat(rival.tryLock()).isTrue();
            rival.unlock();
        }
        assertThat(redis.exists(key)).isFalse();
    }
}
