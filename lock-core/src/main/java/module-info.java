/** The reentrant, fenced, self-renewing Redis lock. Only {@code io.github.deferlock.lock} is API. */
module io.github.deferlock.lock {
    requires transitive redis.clients.jedis;
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.lock;
    // parked work and the acquisition that yields to it, for ordered DEFER (ConflictAwareHandler)
    exports io.github.deferlock.lock.internal to
            io.github.deferlock.conflict;
}
