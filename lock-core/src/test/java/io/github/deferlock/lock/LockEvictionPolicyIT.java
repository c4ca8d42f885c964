package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.RedisClient;

/**
 * Suspected in issue 14: lock keys carry a TTL, so under memory pressure a {@code volatile-*} policy can evict
 * a held lock and an {@code allkeys-*} policy the lock or its fencing counter. {@code RedisLocks.Builder.build()}
 * reads {@code maxmemory} and {@code maxmemory_policy} once and logs one WARN naming the policy when the
 * server may evict (a limit is set and the policy is not {@code noeviction}); it never refuses, since the
 * fencing token still protects the resource. The test captures the log (slf4j-simple writes to
 * {@code System.err}).
 */
final class LockEvictionPolicyIT {

    private static String buildAndCapture(RedisClient redis) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            RedisLocks.builder(redis).build().close();
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        return log;
    }

    @ParameterizedTest(name = "maxmemory {0}, {1} -> warns {2}")
    @CsvSource({
        "64mb, volatile-lru, true",
        "64mb, volatile-ttl, true",
        "64mb, allkeys-lru, true",
        "64mb, noeviction, false",
        "0, allkeys-lru, false"
    })
    void build_evictionPolicy_warnsOnlyWhenLockKeysCanBeEvicted(String maxmemory, String policy, boolean warns) {
        try (RedisServer server = RedisServer.builder()
                        .setting("maxmemory", maxmemory)
                        .setting("maxmemory-policy", policy)
                        .start();
                RedisClient redis = server.newClient()) {
            String log = buildAndCapture(redis);
            if (warns) {
                assertThat(log).contains("WARN").contains("maxmemory-policy is " + policy);
            } else {
                assertThat(log).doesNotContain("maxmemory-policy");
            }
            // locks work either way
            try (RedisLocks locks = RedisLocks.builder(redis).build()) {
                DistributedLock lock = locks.get("ev");
                assertThat(lock.tryLock()).isTrue();
                lock.unlock();
            }
        }
    }
}
