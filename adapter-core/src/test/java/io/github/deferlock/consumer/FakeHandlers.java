package io.github.deferlock.consumer;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.lock.RedisLocks;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/** Handlers for builder tests that never handle anything (so they need no Redis server). */
final class FakeHandlers {
    private FakeHandlers() {}

    static ConflictAwareHandler<String> unused() {
        RedisClient unconnected = RedisClient.create(new HostAndPort("127.0.0.1", 1));
        RedisLocks locks = RedisLocks.builder(unconnected).build();
        return ConflictAwareHandler.builder("unused", String.class, locks)
                .key(m -> m)
                .handler(m -> {})
                .build();
    }
}
