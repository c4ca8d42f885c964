package example;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.spring.LockOutcome;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.UnifiedJedis;

/** The application starts against a redis-server test-support runs, and a @WithLock(DEFER) call is deferred, then run. */
@SpringBootTest(properties = "deferlock.deferrals.initial-delay=100ms")
class AppTest {

    static RedisServer server;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        server = RedisServer.start();
        registry.add("spring.data.redis.host", server::host);
        registry.add("spring.data.redis.port", server::port);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Autowired
    Shipping shipping;

    @Autowired
    UnifiedJedis redis;

    @Test
    void aFreeCallRuns_aCallOnATakenLockIsDeferredAndRunsOnceItIsFree() throws Exception {
        assertEquals("shipped 1", shipping.ship(1).value());

        // a second RedisLocks (another holder, as another instance of the application would be)
        try (RedisLocks otherLocks = RedisLocks.builder(redis).keyPrefix("lock:").build()) {
            LockOutcome<String> outcome;
            try (LockLease lease = otherLocks.get("order:2").acquire(Duration.ofSeconds(5))) {
                outcome = shipping.ship(2);
                assertTrue(outcome.isDeferred(), "the lock was taken: the call must be deferred");
                assertEquals("order:2", outcome.lockName());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> shipping.shipped().size() == 2);
        }
        assertEquals(List.of("1 under the lock", "2 under the lock"), shipping.shipped());
        assertFalse(shipping.shipped().stream().anyMatch(s -> s.contains("WITHOUT")));
    }
}
