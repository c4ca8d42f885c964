/**
 * The consumer core the broker adapters (Kafka, Redis Streams, RabbitMQ) share. {@code io.github.deferlock.consumer}
 * is API (the listener and the builder settings every adapter has); {@code .internal} is exported only to the
 * adapters.
 */
module io.github.deferlock.consumer {
    requires transitive io.github.deferlock.conflict; // and through it lock, delay, Jedis and Jackson
    requires io.github.deferlock.redis;
    requires org.slf4j;

    exports io.github.deferlock.consumer;
    exports io.github.deferlock.consumer.internal to
            io.github.deferlock.kafka,
            io.github.deferlock.streams,
            io.github.deferlock.rabbitmq;
}
