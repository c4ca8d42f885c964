package io.github.deferlock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * The conflicts view against a real redis-server with real contention: a second {@code RedisLocks} (its own
 * connection) holds the locks, the first causes THROW, SLEEP_RETRY and DEFER conflicts, a third waits in the
 * waiter queue; the view must show exactly the conflicts caused, the parked items, the waiter and the holder.
 */
@ExtendWith(RedisExtension.class)
final class ConflictsViewIT {
    record Order(String id, String order) {}

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void conflicts_showTheConflictsCausedPerStrategy_withWaitersParkedAndHolder(RedisServer server, RedisClient redis)
            throws Exception {
        RedisClient otherClient = server.newClient();
        toClose.add(otherClient);
        RedisLocks mine = RedisLocks.builder(redis).build();
        RedisLocks other = RedisLocks.builder(otherClient).build();
        RedisLocks third = RedisLocks.builder(otherClient).build();
        toClose.add(mine);
        toClose.add(other);
        toClose.add(third);
        LockLease hot = other.get("order:1").acquire(Duration.ZERO, Duration.ofSeconds(60));
        LockLease warm = other.get("order:2").acquire(Duration.ZERO, Duration.ofSeconds(60));
        toClose.add(hot);
        toClose.add(warm);

        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(5)), 2, Duration.ofSeconds(5)))
                .build();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> runner.withLock("order:1", OnConflict.THROW, () -> {}))
                    .isInstanceOf(LockConflictException.class);
        }
        for (int i = 0; i < 2; i++) { // two tries each: 4 conflicts
            assertThatThrownBy(() -> runner.withLock("order:1", OnConflict.SLEEP_RETRY, () -> {}))
                    .isInstanceOf(LockConflictException.class);
        }
        assertThatThrownBy(() -> runner.withLock("order:2", OnConflict.THROW, () -> {}))
                .isInstanceOf(LockConflictException.class);
        Deferrals deferrals =
                Deferrals.builder(redis, "deferred").mode(DeferMode.ORDERED).build(); // no worker: parked items stay
        toClose.add(deferrals);
        ConflictAwareHandler<Order> handler = ConflictAwareHandler.builder("orders", Order.class, mine)
                .key(o -> "order:" + o.order())
                .messageId(Order::id)
                .handler(o -> {})
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        for (int i = 0; i < 4; i++) {
            assertThat(handler.handle(new Order("m" + i, "1"))).isEqualTo(Outcome.DEFERRED);
        }
        DistributedLock waiting = third.get("order:1");
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            boolean got = waiting.tryLock(Duration.ofSeconds(30));
            if (got) {
                waiting.unlock();
            }
            return got;
        });

        Inspector inspector = Inspector.builder(redis).build();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            ConflictReport r = inspector.conflicts("lock:", 2, 10);
            assertThat(r.locks()).extracting(ConflictView::name).containsExactly("order:1", "order:2");
            ConflictView v = r.locks().get(0);
            assertThat(v.throwConflicts()).isEqualTo(3);
            assertThat(v.sleepRetryConflicts()).isEqualTo(4);
            assertThat(v.deferConflicts()).isEqualTo(4);
            assertThat(v.total()).isEqualTo(11);
            assertThat(v.parked()).isEqualTo(4);
            assertThat(v.oldestParkedAge()).isPresent();
            assertThat(v.waiters()).isEqualTo(1);
            assertThat(v.key()).isEqualTo("lock:{order:1}");
            assertThat(v.holderToken()).get().asString().hasSize(32);
            assertThat(v.remainingLease()).get().matches(d -> d.compareTo(Duration.ofSeconds(60)) <= 0);
            assertThat(r.locks().get(1).throwConflicts()).isEqualTo(1);
            assertThat(r.locks().get(1).waiters()).isZero();
        });
        ConflictReport report = inspector.conflicts("lock:", 2, 1);
        assertThat(report.locks()).hasSize(1);
        assertThat(report.perSecond(report.locks().get(0).total()))
                .isEqualTo(11 * 1000.0 / report.window().toMillis());
        assertThat(inspector.conflicts("other:", 15, 100).locks()).isEmpty();

        hot.close();
        assertThat(waiter.get()).isTrue();
    }

    @Test
    void conflicts_badBounds_areRefusedWithTheLimit(RedisClient redis) {
        Inspector inspector = Inspector.builder(redis).build();
        assertThatThrownBy(() -> inspector.conflicts("lock:", 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minutes");
        assertThatThrownBy(() -> inspector.conflicts("lock:", 16, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("15");
        assertThatThrownBy(() -> inspector.conflicts("lock:", 1, 101))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("top");
        assertThatThrownBy(() -> inspector.conflicts("a{b", 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
