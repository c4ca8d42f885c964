/** Conflict-aware RabbitMQ (AMQP 0-9-1) consumers. Only {@code io.github.deferlock.rabbitmq} is API. */
module io.github.deferlock.rabbitmq {
    requires transitive io.github.deferlock.consumer; // and through it conflict, lock, delay
    requires io.github.deferlock.redis;
    requires transitive com.rabbitmq.client;
    requires org.slf4j;

    exports io.github.deferlock.rabbitmq;
}
