package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.util.JedisClusterCRC16;

@ExtendWith(RedisExtension.class)
final class RedisLockIT {

    private static CompletableFuture<Object> inOtherThread(Runnable r) {
        return CompletableFuture.supplyAsync(() -> {
            r.run();
            return "done";
        });
    }

    /** How many channels matching {@code pattern} have subscribers. */
    private static long subscribers(RedisServer server, String pattern) {
        try (redis.clients.jedis.Jedis jedis = server.newConnection()) {
            return jedis.pubsubChannels(pattern).size();
        }
    }

    /** The server's time in microseconds. */
    static long serverMicros(redis.clients.jedis.UnifiedJedis redis) {
        List<?> time = (List<?>) redis.eval("return redis.call('TIME')");
        return Long.parseLong(time.get(0).toString()) * 1_000_000L
                + Long.parseLong(time.get(1).toString());
    }

    @Test
    void tryLock_freeLock_acquiresWithOneKeyAndFence(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("order:42");

            assertThat(lock.tryLock()).isTrue();

            assertThat(lock.key()).isEqualTo("lock:{order:42}");
            assertThat(lock.name()).isEqualTo("order:42");
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.holdCount()).isEqualTo(1);
            long fence = Long.parseLong(redis.get("lock:{order:42}:fence"));
            // a block of 8 tokens reserved for hand-offs, above the server time in µs (survives data loss)
            assertThat(lock.fencingToken()).isEqualTo(fence - 7).isGreaterThan(serverMicros(redis) - 60_000_000L);
            assertThat(redis.pttl("lock:{order:42}")).isBetween(25_000L, 30_000L);
            lock.unlock();
            assertThat(redis.exists("lock:{order:42}")).isFalse();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
        }
    }

    @Test
    @SuppressWarnings("deprecation") // lastHolderTtl() keeps working until it is removed
    void tryLock_heldElsewhere_returnsFalseAndWithLockThrowsConflict(RedisServer server, RedisClient redis) {
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = theirs.get("k");
            assertThat(held.tryLock()).isTrue();
            DistributedLock lock = mine.get("k");

            assertThat(lock.lastHolderTtl()).isEmpty();
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.lastHolderTtl()).hasValueSatisfying(ttl -> assertThat(ttl)
                    .isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30)));
            assertThat(mine.get("other").lastHolderTtl()).isEmpty();
            assertThat(lock.tryLock(Duration.ofMillis(50))).isFalse();
            assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
            assertThatThrownBy(() -> lock.withLock(() -> "never"))
                    .isInstanceOfSatisfying(LockConflictException.class, e -> {
                        assertThat(e.key()).isEqualTo("k");
                        assertThat(e.attempts()).isEqualTo(1);
                        assertThat(e.holderTtl()).hasValueSatisfying(ttl -> assertThat(ttl)
                                .isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30)));
                    });
            assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(30)))
                    .isInstanceOfSatisfying(LockConflictException.class, e -> assertThat(e.waited())
                            .isGreaterThanOrEqualTo(Duration.ofMillis(30)));
            held.unlock();
            assertThat(lock.withLock(() -> "ran")).isEqualTo("ran");
            assertThat(lock.lastHolderTtl()).isEmpty();
        }
    }

    @Test
    void attempt_reportsTheConflictsDetailsInItsResult(RedisServer server, RedisClient redis) throws Exception {
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = theirs.get("k");
            assertThat(held.tryLock()).isTrue();
            DistributedLock lock = mine.get("k");

            LockAttempt elsewhere = lock.attempt(Duration.ofMillis(40));
            assertThat(elsewhere.acquired()).isFalse();
            assertThat(elsewhere.name()).isEqualTo("k");
            assertThat(elsewhere.attempts()).isGreaterThanOrEqualTo(2);
            assertThat(elsewhere.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(40));
            assertThat(elsewhere.holderTtl()).hasValueSatisfying(ttl -> assertThat(ttl)
                    .isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30)));
            assertThat(elsewhere.toConflict()).satisfies(e -> {
                assertThat(e.key()).isEqualTo("k");
                assertThat(e.attempts()).isEqualTo(elsewhere.attempts());
                assertThat(e.holderTtl()).isEqualTo(elsewhere.holderTtl());
            });

            held.unlock();
            LockAttempt won = lock.attempt(Duration.ZERO);
            assertThat(won.acquired()).isTrue();
            assertThat(won.holderTtl()).isEmpty();
            assertThatThrownBy(won::toConflict).isInstanceOf(IllegalStateException.class);
            assertThat(lock.attempt(Duration.ZERO).acquired()).isTrue(); // re-entry
            assertThat(lock.holdCount()).isEqualTo(2);

            // held by another thread of this JVM: no request reaches Redis, no TTL is known
            LockAttempt local = CompletableFuture.supplyAsync(() -> lock.attempt(Duration.ZERO))
                    .get(10, TimeUnit.SECONDS);
            assertThat(local.acquired()).isFalse();
            assertThat(local.attempts()).isZero();
            assertThat(local.holderTtl()).isEmpty();
            lock.unlock();
            lock.unlock();
        }
    }

    @Test
    void unlock_reentered3Deep_deletesKeyOnlyAfterThirdUnlock(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("re");
            lock.lock();
            String fence = redis.get("lock:{re}:fence");
            assertThat(locks.get("re").tryLock()).isTrue(); // another instance, same lock
            assertThat(lock.tryLock(Duration.ofSeconds(1))).isTrue();
            assertThat(lock.holdCount()).isEqualTo(3);
            assertThat(redis.get("lock:{re}:fence")).isEqualTo(fence); // one Redis acquisition

            assertThat(inOtherThread(lock::unlock))
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingRootCause()
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .withMessageContaining("lock:{re}");
            lock.unlock();
            lock.unlock();
            assertThat(redis.exists("lock:{re}")).isTrue();
            assertThat(lock.holdCount()).isEqualTo(1);
            lock.unlock();
            assertThat(redis.exists("lock:{re}")).isFalse();
            assertThat(lock.holdCount()).isZero();
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }
    }

    @Test
    void fencingToken_everyAcquisition_strictlyIncreases(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("fence");
            long last = 0;
            for (int i = 0; i < 5; i++) {
                try (LockLease lease = lock.acquire(Duration.ofSeconds(1))) {
                    assertThat(lease.fencingToken()).isGreaterThan(last);
                    last = lease.fencingToken();
                }
                long token = lock.withLock(lock::fencingToken);
                assertThat(token).isGreaterThan(last);
                last = token;
            }
        }
    }

    @Test
    void release_fromAnotherThread_releasesTheHandle(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("handle");
            LockLease lease = lock.acquire(Duration.ofSeconds(1));
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.key()).isEqualTo("lock:{handle}");

            assertThat(inOtherThread(lease::close)).succeedsWithin(Duration.ofSeconds(10));

            assertThat(lease.isHeld()).isFalse();
            assertThat(redis.exists("lock:{handle}")).isFalse();
            lease.close(); // idempotent
            assertThat(lock.tryAcquire(Duration.ZERO)).isPresent().get().satisfies(LockLease::close);
        }
    }

    @Test
    void get_binaryNames_eachHasOwnKeyAndFenceInItsSlot(RedisClient redis) {
        List<String> names = List.of("a\"b'c", "line\nbreak", "{", "}", "}{", "x{y}z", "%7B", "{}", "日本語", "é\u0000");
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("").build()) {
            for (String name : names) {
                DistributedLock lock = locks.get(name);
                assertThat(lock.tryLock()).as(name).isTrue();
                byte[] key = lock.key().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                byte[] fence = (lock.key() + ":fence").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertThat(JedisClusterCRC16.getSlot(fence)).as(name).isEqualTo(JedisClusterCRC16.getSlot(key));
                assertThat(redis.exists(key)).as(name).isTrue();
            }
            // a lock and a fence per name, and the prefix's registry entry (docs/names.md): "registry" for ""
            assertThat(redis.dbSize()).isEqualTo(2L * names.size() + 1);
            assertThat(redis.exists("registry")).isTrue();
            for (String name : names) {
                locks.get(name).unlock();
            }
            // the fences stay, and each release leaves its short-lived release record (p{e}:last-release)
            assertThat(redis.dbSize()).isEqualTo(2L * names.size() + 1);
            for (String name : names) {
                assertThat(redis.exists(locks.get(name).key() + ":last-release"))
                        .as(name)
                        .isTrue();
            }
        }
    }

    @Test
    void get_badInput_failsNamingTheValue(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            assertThatThrownBy(() -> locks.get(null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessage("name cannot be null");
            assertThatThrownBy(() -> locks.get("")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> locks.get("bad\uD800"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Unicode");
            DistributedLock lock = locks.get("x");
            assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1 ms");
            assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease must be positive, not 0 s");
            assertThatThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ofMillis(10)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease 10 ms is shorter than 30 ms");
            assertThatThrownBy(() -> RedisLocks.builder(redis).defaultLease(Duration.ofMillis(20)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("defaultLease 20 ms");
            assertThatThrownBy(() -> RedisLocks.builder(redis).keyPrefix("a{b}:"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> RedisLocks.builder(redis).watchdog(true).watchdog(false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("watchdog was already set to true");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
        RedisLocks closed = RedisLocks.builder(redis).build();
        closed.close();
        assertThatThrownBy(() -> closed.get("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tryLock_keyOfWrongType_failsNamingTheKey(RedisClient redis) {
        redis.hset("lock:{hash}", "f", "v");
        redis.set("lock:{str}:fence", "not a number");
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            assertThatThrownBy(() -> locks.get("hash").tryLock())
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("lock:{hash}")
                    .hasMessageContaining("WRONGTYPE");
            assertThatThrownBy(() -> locks.get("str").tryLock())
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("lock:{str}");
            assertThat(redis.exists("lock:{str}")).isFalse();
        }
    }

    @Test
    void withLock_checkedException_isWrappedAndLockReleased(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("body");
            assertThatThrownBy(() -> lock.withLock(() -> {
                        throw new java.io.IOException("disk");
                    }))
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(java.io.IOException.class);
            assertThatThrownBy(() -> lock.withLock(() -> {
                        throw new IllegalStateException("body");
                    }))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(redis.exists("lock:{body}")).isFalse();
            assertThat(lock.holdCount()).isZero();
        }
    }

    @Test
    void unlock_explicitLeaseRanOut_throwsLockLostWithLowerToken(RedisServer server, RedisClient redis) {
        List<String> events = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void onAcquired(String key, long fencingToken, Duration waited) {
                events.add("acquired " + fencingToken);
            }

            @Override
            public void onConflict(String key, Optional<Duration> holderTtl) {
                events.add("conflict " + holderTtl.isPresent());
            }

            @Override
            public void onReleased(String key, Duration held) {
                events.add("released");
            }

            @Override
            public void onLost(String key, long fencingToken, Throwable cause) {
                events.add("lost " + fencingToken);
            }
        };
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).listener(listener).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock lock = mine.get("short");
            assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(100))).isTrue();
            long first = lock.fencingToken();
            DistributedLock rival = theirs.get("short");
            assertThat(rival.tryLock(Duration.ofSeconds(10))).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isFalse();

            assertThatThrownBy(lock::unlock).isInstanceOfSatisfying(LockLostException.class, e -> {
                assertThat(e.key()).isEqualTo("lock:{short}");
                assertThat(e.fencingToken()).isEqualTo(first).isLessThan(rival.fencingToken());
            });
            assertThat(lock.holdCount()).isZero();
            assertThat(lock.tryLock()).isFalse();
            assertThat(events).containsExactly("acquired " + first, "lost " + first, "conflict true");
            long rivalToken = rival.fencingToken();
            rival.unlock();
            lock.withLock(() -> {});
            assertThat(events).endsWith("released");
            String acquired = events.get(events.size() - 2);
            assertThat(acquired).startsWith("acquired ");
            // past the explicit lease's token and the whole block of 8 the rival reserved
            assertThat(Long.parseLong(acquired.substring("acquired ".length()))).isGreaterThan(rivalToken + 7);
        }
    }

    @Test
    void isHeld_fakeClockPassesLease_turnsFalseWithoutWaiting(RedisClient redis) {
        AtomicLong now = new AtomicLong();
        try (RedisLocks locks =
                RedisLocks.builder(redis).clock(now::get).watchdog(false).build()) {
            LockLease lease = locks.get("clock").acquire(Duration.ZERO, Duration.ofSeconds(10));
            assertThat(lease.isHeld()).isTrue();
            now.addAndGet(Duration.ofSeconds(10).toNanos());
            assertThat(lease.isHeld()).isFalse();
            lease.close(); // Redis still had it: a normal release
            assertThat(redis.exists("lock:{clock}")).isFalse();
        }
    }

    @Test
    void acquire_waitForReplicasNotMet_failsAndLeavesNoKey(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis)
                .waitForReplicas(1, Duration.ofMillis(50))
                .build()) {
            assertThatThrownBy(() -> locks.get("replicated").tryLock())
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("0 of 1 replicas");
            assertThat(redis.exists("lock:{replicated}")).isFalse();
        }
    }

    @Test
    void tryLock_releasedInOtherProcess_wakesOnReleaseNotice(RedisServer server, RedisClient redis) {
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = theirs.get("notice");
            held.lock();
            AtomicLong acquiredAt = new AtomicLong();
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = mine.get("notice");
                boolean got = lock.tryLock(Duration.ofSeconds(20));
                acquiredAt.set(System.nanoTime());
                lock.unlock();
                return got;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(server, "lock:{notice}:released:*") == 1L);
            // let the fallback poll grow to its 500 ms cap, so only the notice can wake the waiter quickly
            await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
            long releasedAt = System.nanoTime();
            held.unlock();
            assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
            assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).isLessThan(Duration.ofMillis(150));
        }
    }
}
