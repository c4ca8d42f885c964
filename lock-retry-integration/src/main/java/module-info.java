/** OnConflict strategies and conflict-aware workers. Only {@code io.github.deferlock.conflict} is API. */
module io.github.deferlock.conflict {
    requires transitive io.github.deferlock.lock;
    requires transitive io.github.deferlock.delay;
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.conflict;

    // DeferredMessage's stored format is read and written by Jackson through non-public members
    opens io.github.deferlock.conflict to
            com.fasterxml.jackson.databind;
}
