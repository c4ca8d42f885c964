package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.RedisClient;

/** {@code @WithLock} in a real application, each strategy under contention from a second thread and a second JVM. */
@SpringBootTest(
        classes = WithLockIT.App.class,
        properties = {
            "deferlock.lock.key-prefix=app:",
            "deferlock.deferrals.initial-delay=100ms",
            "deferlock.deferrals.max-delay=300ms"
        })
@DirtiesContext
final class WithLockIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        OrderService orderService(RedisLocks locks) {
            return new OrderService(locks);
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", SERVER::host);
        registry.add("spring.data.redis.port", SERVER::port);
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @Autowired
    OrderService orders;

    @Autowired
    Deferrals deferrals;

    private RedisClient otherClient;
    private RedisLocks other;

    @BeforeEach
    void setUp() {
        orders.runs().clear();
        otherClient = SERVER.newClient();
        other = RedisLocks.builder(otherClient).keyPrefix("app:").build();
    }

    @AfterEach
    void tearDown() {
        other.close();
        otherClient.close();
    }

    /** Holds {@code name} from another client on another thread until the returned latch is counted down. */
    private CountDownLatch holdElsewhere(String name) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            DistributedLock lock = other.get(name);
            lock.tryLock(Duration.ZERO, Duration.ofSeconds(60));
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lock.unlock();
        });
        t.setDaemon(true);
        t.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void free_runsEveryStrategyUnderTheLock() {
        assertThat(orders.throwing(1)).isEqualTo("done 1");
        assertThat(orders.retrying(1)).isEqualTo("done 1");
        LockOutcome<String> outcome = orders.deferring(1, "a");
        assertThat(outcome.isDone()).isTrue();
        assertThat(outcome.value()).isEqualTo("done a");
        orders.deferringVoid(1, "b");
        assertThat(orders.runs()).hasSize(4).allMatch(OrderService.Run::heldLock);
        assertThat(other.get("order:1").tryLock())
                .as("released after each call")
                .isTrue();
        other.get("order:1").unlock();
    }

    @Test
    void throw_underContention_raisesAndDoesNotRun() throws Exception {
        CountDownLatch release = holdElsewhere("order:2");
        try {
            assertThatThrownBy(() -> orders.throwing(2))
                    .isInstanceOf(LockConflictException.class)
                    .hasMessageContaining("order:2");
            assertThat(orders.runs()).isEmpty();
        } finally {
            release.countDown();
        }
    }

    @Test
    void checkedException_reachesTheCallerAsItIs() {
        assertThatThrownBy(() -> orders.failing(3))
                .isInstanceOf(IOException.class)
                .hasMessage("checked failure for order 3");
        assertThat(other.get("order:3").tryLock())
                .as("released after the failure")
                .isTrue();
        other.get("order:3").unlock();
    }

    @Test
    void sleepRetry_underContention_runsOnceTheHolderLetsGo() throws Exception {
        CountDownLatch release = holdElsewhere("order:4");
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            release.countDown();
        });
        releaser.start();
        long start = System.nanoTime();
        assertThat(orders.retrying(4)).isEqualTo("done 4");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(orders.runs()).singleElement().satisfies(r -> assertThat(r.heldLock())
                .isTrue());
    }

    @Test
    void defer_underContention_returnsDeferred_thenRunsOnceUnderTheLock() throws Exception {
        CountDownLatch release = holdElsewhere("order:5");
        LockOutcome<String> outcome = orders.deferring(5, "later");
        orders.deferringVoid(5, "later-void");
        assertThat(outcome.isDeferred()).isTrue();
        assertThat(outcome.lockName()).isEqualTo("order:5");
        assertThatThrownBy(outcome::value)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deferred");
        assertThat(orders.runs()).as("nothing ran while the lock was taken").isEmpty();
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.runs().size() == 2);
        awaitDeferralsSettled();
        List<OrderService.Run> runs = orders.runs();
        assertThat(runs)
                .extracting(OrderService.Run::method, OrderService.Run::note)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("deferring", "later"),
                        org.assertj.core.groups.Tuple.tuple("deferringVoid", "later-void"));
        assertThat(runs).allMatch(OrderService.Run::heldLock);
    }

    @Test
    void defer_whileASecondJvmHoldsTheLock_runsOnceAfterItReleases() {
        try (JvmProcess holder = JvmProcess.start(LockHolder.class, SERVER.uri(), "app:", "order:6")) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            assertThatThrownBy(() -> orders.throwing(6)).isInstanceOf(LockConflictException.class);
            LockOutcome<String> outcome = orders.deferring(6, "cross-jvm");
            assertThat(outcome.isDeferred()).isTrue();
            assertThat(orders.runs()).isEmpty();
            try (RedisClient c = SERVER.newClient()) {
                c.set("release:order:6", "1");
            }
            holder.awaitLine("RELEASED", Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> !orders.runs().isEmpty());
            awaitDeferralsSettled();
            assertThat(orders.runs()).singleElement().satisfies(r -> {
                assertThat(r.note()).isEqualTo("cross-jvm");
                assertThat(r.heldLock()).isTrue();
            });
        }
    }

    @Test
    void sleepRetry_whileASecondJvmHoldsTheLock_waitsQueued_andRunsOnceAfterItReleases() throws Exception {
        try (JvmProcess holder = JvmProcess.start(LockHolder.class, SERVER.uri(), "app:", "order:7");
                RedisClient c = SERVER.newClient()) {
            holder.awaitLine("HELD", Duration.ofSeconds(60));
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> orders.retrying(7));
            // a waiter queued behind the holder marks the holder's value with '+': the call is waiting, not done
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> String.valueOf(c.get("app:{order:7}")).endsWith("+"));
            assertThat(call).isNotDone();
            assertThat(orders.runs())
                    .as("nothing ran while the other JVM held the lock")
                    .isEmpty();
            c.set("release:order:7", "1");
            holder.awaitLine("RELEASED", Duration.ofSeconds(30));
            assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("done 7");
            assertThat(orders.runs()).singleElement().satisfies(r -> assertThat(r.heldLock())
                    .isTrue());
        }
    }

    private void awaitDeferralsSettled() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deferrals.queue().size(JobState.DUE) == 0
                        && deferrals.queue().size(JobState.IN_FLIGHT) == 0);
        assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
    }
}
