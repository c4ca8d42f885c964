package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

@ExtendWith(RedisExtension.class)
final class InterruptIT {

    private record Result(Throwable error, boolean interrupted, int holdCount) {}

    private static Thread waiter(DistributedLock lock, CompletableFuture<Result> result) {
        Thread t = new Thread(() -> {
            try {
                lock.lock();
                result.complete(new Result(null, Thread.currentThread().isInterrupted(), lock.holdCount()));
            } catch (RuntimeException e) {
                result.complete(new Result(e, Thread.currentThread().isInterrupted(), lock.holdCount()));
            }
        });
        t.start();
        return t;
    }

    @Test
    void lock_interruptedWhileWaiting_restoresFlagAndLeavesNoKey(RedisServer server, RedisClient redis)
            throws Exception {
        try (RedisClient other = server.newClient();
                RedisLocks mine = RedisLocks.builder(redis).build();
                RedisLocks theirs = RedisLocks.builder(other).build()) {
            DistributedLock held = mine.get("busy");
            held.lock();
            CompletableFuture<Result> local = new CompletableFuture<>(); // waits on the local queue
            CompletableFuture<Result> remote = new CompletableFuture<>(); // waits in Redis
            Thread localWaiter = waiter(mine.get("busy"), local);
            Thread remoteWaiter = waiter(theirs.get("busy"), remote);
            AtomicReference<Thread.State> state = new AtomicReference<>();
            for (Thread t : new Thread[] {localWaiter, remoteWaiter}) {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    state.set(t.getState());
                    return state.get() == Thread.State.WAITING || state.get() == Thread.State.TIMED_WAITING;
                });
                t.interrupt();
            }

            for (CompletableFuture<Result> f : java.util.List.of(local, remote)) {
                assertThat(f).succeedsWithin(Duration.ofSeconds(10)).satisfies(r -> {
                    assertThat(r.error())
                            .isInstanceOf(LockException.class)
                            .hasCauseInstanceOf(InterruptedException.class)
                            .hasMessageContaining("lock:{busy}");
                    assertThat(r.interrupted()).isTrue();
                    assertThat(r.holdCount()).isZero();
                });
            }
            localWaiter.join();
            remoteWaiter.join();
            held.unlock();
            assertThat(redis.exists("lock:{busy}")).isFalse();
            assertThat(theirs.get("busy").tryLock()).isTrue();
            theirs.get("busy").unlock();
        }
    }

    @Test
    void lockInterruptibly_interrupted_throwsInterruptedException(RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("intr");
            lock.lock();
            CompletableFuture<Throwable> result = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    locks.get("intr").lockInterruptibly();
                    result.complete(null);
                } catch (InterruptedException | RuntimeException e) {
                    result.complete(e);
                }
            });
            t.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.WAITING);
            t.interrupt();
            assertThat(result).succeedsWithin(Duration.ofSeconds(10)).isInstanceOf(InterruptedException.class);
            lock.unlock();
            assertThat(redis.exists("lock:{intr}")).isFalse();
        }
    }
}
