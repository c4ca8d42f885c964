package io.github.deferlock.shedlock;

import io.github.deferlock.testing.RedisDeployment;

/** ShedLock's provider test suite on cluster Redis. */
final class ShedLockClusterIT extends ShedLockContract {
    @Override
    RedisDeployment start() {
        return RedisDeployment.cluster();
    }
}
