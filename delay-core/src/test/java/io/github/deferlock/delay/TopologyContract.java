package io.github.deferlock.delay;

import io.github.deferlock.testing.RedisDeployment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The lifecycle the per-topology contract tests share: one deployment ({@link #start()}: standalone, cluster or
 * Sentinel) and one client for all tests of a nested class, flushed before each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TopologyContract {
    RedisDeployment deployment;
    UnifiedJedis redis;

    abstract RedisDeployment start();

    @BeforeAll
    final void startDeployment() {
        deployment = start();
        redis = deployment.newClient();
    }

    @AfterAll
    final void stopDeployment() {
        redis.close();
        deployment.close();
    }

    @BeforeEach
    final void flush() {
        deployment.flushAll();
    }
}
