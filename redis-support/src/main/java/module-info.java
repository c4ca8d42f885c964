/**
 * Redis plumbing written once for the deferlock modules: names and key layout, argument rules, scripts (with
 * Lua includes), the replicated call, the topology, the notice bus and the retry policy. Nothing here is API:
 * the one package is exported only to the modules that share it (the lock, delay and conflict modules, and
 * the consumer core and the broker adapters for {@code Require}).
 */
module io.github.deferlock.redis {
    requires transitive redis.clients.jedis;
    requires org.slf4j;

    exports io.github.deferlock.redis.internal to
            io.github.deferlock.lock,
            io.github.deferlock.delay,
            io.github.deferlock.conflict,
            io.github.deferlock.consumer,
            io.github.deferlock.kafka,
            io.github.deferlock.streams,
            io.github.deferlock.rabbitmq,
            io.github.deferlock.inspect,
            io.github.deferlock.dashboard,
            io.github.deferlock.micrometer;
}
