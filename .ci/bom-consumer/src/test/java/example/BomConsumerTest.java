package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/** Compiles against the artifacts the BOM manages, and uses them against a redis-server test-support starts. */
class BomConsumerTest {

    @Test
    void theArtifactsTheBomManagesWorkTogether() throws Exception {
        try (RedisServer server = RedisServer.start();
                UnifiedJedis redis = server.newClient()) {
            RedisLocks locks = RedisLocks.builder(redis).build();
            assertEquals("done", locks.get("bom-consumer").withLock(Duration.ofSeconds(1), () -> "done"));
            DelayQueue<String> queue = DelayQueue.builder(redis, "bom-consumer", String.class).build();
            queue.enqueue("hello", Duration.ZERO);
            assertEquals(1, queue.claim(1).size());
            assertThrows(IllegalArgumentException.class, () -> DelayQueue.builder(redis, "{bad}", String.class));
            assertEquals(Deferrals.class.getModule().getName(), Deferrals.class.getModule().getName());
        }
    }
}
