package io.github.deferlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisDeployment;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.UnifiedJedis;

/**
 * ShedLock's own provider test suite ({@code shedlock-test-support}, unchanged) against {@link
 * DeferlockLockProvider} on a real deployment: the subclass names the topology. {@code assertLocked} and {@code
 * assertUnlocked} read the lock's Redis key, not the provider.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ShedLockContract extends AbstractExtensibleLockProviderIntegrationTest {
    private RedisDeployment deployment;
    private UnifiedJedis redis;
    private RedisLocks locks;
    private DeferlockLockProvider provider;

    abstract RedisDeployment start();

    @BeforeAll
    void startRedis() {
        deployment = start();
        redis = deployment.newClient();
        locks = RedisLocks.builder(redis).build();
        provider = new DeferlockLockProvider(locks);
    }

    @AfterAll
    void stopRedis() {
        if (locks != null) {
            locks.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (deployment != null) {
            deployment.close();
        }
    }

    @BeforeEach
    void flush() {
        deployment.flushAll();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(redis.exists(locks.get(lockName).key()))
                .as("key of lock '%s' exists", lockName)
                .isFalse();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(redis.exists(locks.get(lockName).key()))
                .as("key of lock '%s' exists", lockName)
                .isTrue();
    }

    RedisLocks locks() {
        return locks;
    }

    UnifiedJedis redis() {
        return redis;
    }
}
