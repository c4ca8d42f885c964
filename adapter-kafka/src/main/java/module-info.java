/** Conflict-aware Kafka consumers. Only {@code io.github.deferlock.kafka} is API. */
module io.github.deferlock.kafka {
    requires transitive io.github.deferlock.consumer; // and through it conflict, lock, delay
    requires transitive kafka.clients;
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.kafka;
}
