package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 29, "New faults" (lock part): the Redis server itself misbehaves while locks are held. L16: the
 * server frozen (SIGSTOP) for longer than the lease; L17: replies slower than the client's socket timeout
 * (the server ran the call, the client gave up on it); L18: {@code maxmemory} reached with {@code
 * noeviction}.
 */
@ExtendWith(RedisExtension.class)
final class LockServerFaultIT {
    private static final int SOCKET_TIMEOUT_MS = 400;

    private static RedisClient client(HostAndPort at) {
        return RedisClient.builder()
                .hostAndPort(at)
                .clientConfig(DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(SOCKET_TIMEOUT_MS)
                        .build())
                .build();
    }

    private static LockListener lostInto(List<Long> lost) {
        return new LockListener() {
            @Override
            public void onLost(String key, long fencingToken, Throwable cause) {
                lost.add(fencingToken);
            }
        };
    }

    /** The outcome of a timed {@code tryLock(wait)} from another thread: its result or failure, and its time. */
    private record Timed(Object outcome, long millis) {}

    private static CompletableFuture<Timed> tryLockElsewhere(DistributedLock lock, Duration wait) {
        return CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            Object outcome;
            try {
                outcome = lock.tryLock(wait);
                if (Boolean.TRUE.equals(outcome)) {
                    lock.unlock();
                }
            } catch (RuntimeException e) {
                outcome = e;
            }
            return new Timed(outcome, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        });
    }

    /**
     * L16: redis-server frozen (SIGSTOP) for 3 s, twice the 1.5 s watchdog lease of a held lock. While it is
     * frozen another client's {@code tryLock(200 ms)} returns (false or a {@link LockException}) within its
     * wait plus twice the client's socket timeout (400 ms: the acquire, then leaving the waiter queue) plus
     * 500 ms, never true; the holder is told of the loss
     * ({@code onLost}, once, with its token) when its lease runs out unrenewed. After the resume the rival
     * acquires with a larger fencing token, and the stale holder's {@code unlock()} throws {@link
     * LockLostException} and leaves the rival's key alone.
     */
    @Test
    void lock_redisPausedPastLease_waitsKeepTheirBoundLossReportedTokensIncrease(RedisServer server, UnifiedJedis redis)
            throws Exception {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (RedisClient mineClient = client(server.hostAndPort());
                RedisClient theirsClient = client(server.hostAndPort());
                RedisLocks mine = RedisLocks.builder(mineClient)
                        .defaultLease(Duration.ofMillis(1_500))
                        .listener(lostInto(lost))
                        .build();
                // a call the rival sent while the server was frozen runs when it resumes: a grant nobody hears
                // of, which lives for the rival's lease (L4)
                RedisLocks theirs = RedisLocks.builder(theirsClient)
                        .defaultLease(Duration.ofMillis(1_500))
                        .build()) {
            DistributedLock lock = mine.get("paused");
            DistributedLock rival = theirs.get("paused");
            lock.lock();
            long token = lock.fencingToken();
            assertThat(rival.tryLock()).isFalse(); // scripts loaded, connections pooled

            long pausedAt = System.nanoTime();
            server.pause();
            try {
                Timed frozen = tryLockElsewhere(rival, Duration.ofMillis(200)).get(30, TimeUnit.SECONDS);
                LoggerFactory.getLogger(LockServerFaultIT.class)
                        .info("tryLock(200 ms) on a frozen server: {} after {} ms", frozen.outcome(), frozen.millis());
                assertThat(frozen.outcome())
                        .as("tryLock(200 ms) on a frozen server")
                        .isNotEqualTo(true);
                assertThat(frozen.millis())
                        .as("tryLock(200 ms) on a frozen server returned after (ms); outcome %s", frozen.outcome())
                        .isLessThanOrEqualTo(200 + 2 * SOCKET_TIMEOUT_MS + 500);
                await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
                long left = 3_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
                if (left > 0) {
                    Thread.sleep(left); // the fault: frozen for twice the lease
                }
            } finally {
                server.resume();
            }

            assertThat(rival.tryLock(Duration.ofSeconds(5))).isTrue();
            assertThat(rival.fencingToken()).isGreaterThan(token);
            String rivalValue = redis.get("lock:{paused}");
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            assertThat(redis.get("lock:{paused}")).isEqualTo(rivalValue);
            assertThat(lost).containsExactly(token);
            rival.unlock();
        }
    }

    /**
     * L17: the server's replies come 1.5 s late, past the 400 ms socket timeout. An acquire the server
     * granted: the caller gets a {@link LockException} (outcome unknown, the call is not resent blindly) or,
     * if resent, the first grant; either way there is one holder: the rival gets nothing while the grant
     * lives, and then the lock within the 2 s lease. A release the server ran: the resend recognises its own
     * success (no {@link LockLostException}, no {@code onLost}); the rival acquires at once.
     */
    @Test
    void acquireAndRelease_repliesSlowerThanSocketTimeout_neverTwoHolders(RedisServer server, UnifiedJedis redis)
            throws Exception {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = client(proxy.hostAndPort());
                RedisLocks mine = RedisLocks.builder(viaProxy)
                        .defaultLease(Duration.ofSeconds(2))
                        .listener(lostInto(lost))
                        .build();
                RedisLocks theirs = RedisLocks.builder(redis).build()) {
            DistributedLock lock = mine.get("slow");
            DistributedLock rival = theirs.get("slow");
            lock.lock(); // scripts loaded, a pooled connection
            lock.unlock();

            proxy.slowReplies(Duration.ofMillis(1_500));
            CompletableFuture<Object> acquire = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryAcquire(Duration.ofMillis(100));
                } catch (RuntimeException e) {
                    return e;
                }
            });
            try {
                await().pollInterval(Duration.ofMillis(20))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> redis.exists("lock:{slow}"));
            } finally {
                proxy.heal();
            }
            Object outcome = acquire.get(30, TimeUnit.SECONDS);
            LoggerFactory.getLogger(LockServerFaultIT.class).info("an acquire answered late: {}", outcome);
            long sentAt = System.nanoTime();
            assertThat(rival.tryLock()).as("the rival while the grant lives").isFalse();
            if (outcome instanceof java.util.Optional<?> held && held.isPresent()) {
                ((LockLease) held.get()).release();
            } else {
                assertThat(outcome).as("outcome unknown: an exception").isInstanceOf(LockException.class);
                assertThat(rival.tryLock(Duration.ofSeconds(5))).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt))
                        .as("the orphan grant expires within its lease")
                        .isLessThanOrEqualTo(2_000 + 500);
                rival.unlock();
            }

            LockLease lease = lock.acquire(Duration.ofSeconds(1));
            proxy.slowReplies(Duration.ofMillis(1_500));
            CompletableFuture<Void> release = CompletableFuture.runAsync(lease::release);
            try {
                await().pollInterval(Duration.ofMillis(20))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> !redis.exists("lock:{slow}"));
            } finally {
                proxy.heal();
            }
            release.get(30, TimeUnit.SECONDS); // no LockLostException
            assertThat(lost).as("no false loss").isEmpty();
            assertThat(rival.tryLock()).isTrue();
            rival.unlock();
        }
    }

    /**
     * L18: {@code maxmemory} reached with {@code noeviction}. A new acquisition fails at once with a {@link
     * LockException} naming the lock and Redis's OOM reply ({@code tryLock(wait)} and {@code lock()} alike,
     * never a hang); a lock held before keeps being renewed past its lease and its {@code unlock()} releases
     * it; once memory is freed locks are granted again.
     */
    @Test
    void acquire_maxmemoryReached_failsClearly_heldLockRenewedAndReleased() throws Exception {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (RedisServer server = RedisServer.builder()
                        .setting("maxmemory-policy", "noeviction")
                        .start();
                RedisClient redis = server.newClient();
                RedisLocks locks = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(1_500))
                        .listener(lostInto(lost))
                        .build()) {
            DistributedLock held = locks.get("held");
            DistributedLock fresh = locks.get("fresh");
            held.lock();
            for (int i = 0; i < 20; i++) { // 2 MB in small writes: no large query buffer in used_memory
                redis.set("filler:" + i, "x".repeat(100_000));
            }
            server.config("maxmemory", String.valueOf(usedMemory(redis) - 1_000_000));

            long start = System.nanoTime();
            assertThatThrownBy(() -> fresh.tryLock(Duration.ofSeconds(1)))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("{fresh}")
                    .hasMessageContaining("OOM");
            CompletableFuture<Object> blocking = CompletableFuture.supplyAsync(() -> {
                try {
                    fresh.lock();
                    fresh.unlock();
                    return "acquired";
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertThat(blocking.get(5, TimeUnit.SECONDS)).as("lock() under OOM").isInstanceOf(LockException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("both failed within (ms)")
                    .isLessThan(5_000);

            Thread.sleep(2_000); // longer than the lease: only renewals keep the held lock
            assertThat(held.isHeldByCurrentThread()).isTrue();
            assertThat(redis.pttl("lock:{held}")).isPositive();
            assertThat(lost).as("no loss under OOM").isEmpty();
            held.unlock();
            assertThat(redis.exists("lock:{held}")).isFalse();
            assertThat(usedMemory(redis)).as("still over the limit").isGreaterThan(maxMemory(redis));

            for (int i = 0; i < 20; i++) {
                redis.del("filler:" + i);
            }
            assertThat(fresh.tryLock(Duration.ofSeconds(1))).isTrue();
            fresh.unlock();
        }
    }

    private static long usedMemory(UnifiedJedis redis) {
        return infoField(redis, "used_memory");
    }

    private static long maxMemory(UnifiedJedis redis) {
        return infoField(redis, "maxmemory");
    }

    private static long infoField(UnifiedJedis redis, String field) {
        for (String line : redis.info("memory").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        throw new IllegalStateException("no " + field + " in INFO memory");
    }
}
