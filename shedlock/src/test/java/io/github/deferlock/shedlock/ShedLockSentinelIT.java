package io.github.deferlock.shedlock;

import io.github.deferlock.testing.RedisDeployment;

/** ShedLock's provider test suite on sentinel Redis. */
final class ShedLockSentinelIT extends ShedLockContract {
    @Override
    RedisDeployment start() {
        return RedisDeployment.sentinel();
    }
}
