package io.github.deferlock.shedlock;

import io.github.deferlock.testing.RedisDeployment;

/** ShedLock's provider test suite on standalone Redis. */
final class ShedLockStandaloneIT extends ShedLockContract {
    @Override
    RedisDeployment start() {
        return RedisDeployment.standalone();
    }
}
