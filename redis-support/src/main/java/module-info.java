/**
 * Redis plumbing written once for the deferlock modules. Nothing here is API: the one package is exported
 * only to the modules that share it.
 */
module io.github.deferlock.redis {
    exports io.github.deferlock.redis.internal to
            io.github.deferlock.lock,
            io.github.deferlock.delay,
            io.github.deferlock.conflict,
            io.github.deferlock.micrometer;
}
