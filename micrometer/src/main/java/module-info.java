/** Micrometer meters over the deferlock listeners. Only {@code io.github.deferlock.micrometer} is API. */
module io.github.deferlock.micrometer {
    requires transitive io.github.deferlock.lock;
    requires transitive io.github.deferlock.delay;
    requires transitive io.github.deferlock.conflict;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires static transitive micrometer.tracing;
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.micrometer;
}
