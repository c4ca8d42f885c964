/** Conflict-aware Redis Streams consumers. Only {@code io.github.deferlock.streams} is API. */
module io.github.deferlock.streams {
    requires transitive io.github.deferlock.consumer; // and through it conflict, lock, delay
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.streams;
}
