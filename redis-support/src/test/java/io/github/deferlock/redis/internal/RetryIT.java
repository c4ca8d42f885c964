package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/** {@link Retry} against a real redis-server that restarts and answers {@code LOADING} while it loads. */
final class RetryIT {

    @Test
    void aCallDuringLoading_waitsItOut_andAnswers() throws Exception {
        // before 7.0 the server answers clients during loading only every 2 MB read, so no LOADING reply is seen
        String version = io.github.deferlock.testing.RedisBinary.resolve().version();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Integer.parseInt(version.split("\\.")[0]) >= 7,
                "LOADING test skipped: redis-server " + version + " has no loading-process-events-interval-bytes");
        // key-load-delay slows loading down (microseconds per key), and a small events interval lets the server
        // answer clients while it loads (with LOADING) instead of after
        try (RedisServer server = RedisServer.builder()
                        .setting("key-load-delay", "100")
                        .setting("loading-process-events-interval-bytes", "1024")
                        .start();
                RedisClient redis = server.newClient()) {
            try (Jedis admin = server.newConnection()) {
                for (int i = 0; i < 10_000; i++) {
                    admin.set("k" + i, "v" + i, SetParams.setParams());
                }
                admin.save();
            }
            server.kill();
            CompletableFuture<Void> restart = CompletableFuture.runAsync(server::restart);
            // the port answers before loading ends: wait for the first LOADING, then make the call under test
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean loading = false;
            while (!loading && System.nanoTime() < deadline) {
                try {
                    redis.get("k1");
                } catch (RuntimeException e) {
                    loading = Retry.isLoading(e);
                }
            }
            assertThat(loading).as("the restarted server answered LOADING").isTrue();

            String value = Retry.QUICK_CONNECTION_ERRORS.call(() -> redis.get("k9999"));

            assertThat(value).isEqualTo("v9999");
            restart.get(30, TimeUnit.SECONDS);
        }
    }
}
