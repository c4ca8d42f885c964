package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class WatchdogIT {

    @Test
    void lock_lease1sHeld5s_staysHeldAndNoRenewalAfterUnlock(RedisServer server, RedisClient redis) {
        try (RedisLocks locks =
                RedisLocks.builder(redis).defaultLease(Duration.ofSeconds(1)).build()) {
            DistributedLock lock = locks.get("long");
            lock.lock();
            long before = ScriptCalls.count(server);

            await().pollInSameThread()
                    .during(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(8))
                    .until(() -> lock.isHeldByCurrentThread() && redis.pttl("lock:{long}") > 0);

            assertThat(redis.pttl("lock:{long}")).isBetween(1L, 1000L);
            assertThat(ScriptCalls.count(server) - before).isGreaterThanOrEqualTo(10); // renewed every ~333 ms
            assertThat(lock.fencingToken()).isEqualTo(Long.parseLong(redis.get("lock:{long}:fence")) - 7);
            lock.unlock();
            long after = ScriptCalls.count(server);
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(4))
                    .until(() -> ScriptCalls.count(server) == after && !redis.exists("lock:{long}"));
        }
    }

    @Test
    void unlock_keyDeletedWhileHeld_lostAndRivalHasHigherToken(RedisServer server, RedisClient redis) {
        List<Long> lost = new CopyOnWriteArrayList<>();
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis)
                        .defaultLease(Duration.ofMillis(600))
                        .listener(new LockListener() {
                            @Override
                            public void onLost(String key, long fencingToken, Throwable cause) {
                                lost.add(fencingToken);
                            }
                        })
                        .build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock lock = mine.get("victim");
            lock.lock();
            long token = lock.fencingToken();
            redis.del("lock:{victim}");
            DistributedLock rival = theirs.get("victim");
            assertThat(rival.tryLock()).isTrue();

            await().atMost(Duration.ofSeconds(5)).until(() -> lost.contains(token));
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(lock.holdCount()).isEqualTo(1);
            assertThatThrownBy(lock::unlock)
                    .isInstanceOfSatisfying(
                            LockLostException.class,
                            e -> assertThat(e.fencingToken()).isEqualTo(token).isLessThan(rival.fencingToken()));
            assertThat(redis.exists("lock:{victim}")).isTrue(); // the rival's key was not touched
            rival.unlock();
        }
    }

    @Test
    void release_holderCutOffBeyondLease_lostAndRivalAcquires(RedisServer server, RedisClient redis) {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build();
                RedisLocks mine = RedisLocks.builder(viaProxy)
                        .defaultLease(Duration.ofMillis(900))
                        .build();
                RedisLocks theirs = RedisLocks.builder(redis).build()) {
            LockLease lease = mine.get("cut").acquire(Duration.ZERO);
            proxy.blackhole();
            DistributedLock rival = theirs.get("cut");
            assertThat(rival.tryLock(Duration.ofSeconds(5))).isTrue();
            await().atMost(Duration.ofSeconds(8)).until(() -> !lease.isHeld());
            proxy.heal();

            assertThatThrownBy(lease::close)
                    .isInstanceOfSatisfying(LockLostException.class, e -> assertThat(e.fencingToken())
                            .isLessThan(rival.fencingToken()));
            assertThat(rival.isHeldByCurrentThread()).isTrue();
            rival.unlock();
        }
    }
}
