package io.github.deferlock.demo;

import io.github.deferlock.testing.KafkaBroker;
import io.github.deferlock.testing.QpidBroker;

/**
 * The broker a {@code --source} needs, started in-process once for the whole run: a Kafka KRaft node for {@code
 * kafka}, Apache Qpid Broker-J (AMQP 0-9-1) for {@code rabbit}; none for {@code queue} and {@code streams}.
 */
final class Brokers implements AutoCloseable {
    private final KafkaBroker kafka;
    private final QpidBroker rabbit;

    private Brokers(KafkaBroker kafka, QpidBroker rabbit) {
        this.kafka = kafka;
        this.rabbit = rabbit;
    }

    static Brokers forSource(String source) {
        return switch (source) {
            case "kafka" -> new Brokers(KafkaBroker.start(), null);
            case "rabbit" -> new Brokers(null, QpidBroker.start());
            default -> new Brokers(null, null);
        };
    }

    /** The Kafka broker; only for {@code --source kafka}. */
    KafkaBroker kafka() {
        if (kafka == null) {
            throw new IllegalStateException("no Kafka broker was started for this source");
        }
        return kafka;
    }

    /** The AMQP broker; only for {@code --source rabbit}. */
    QpidBroker rabbit() {
        if (rabbit == null) {
            throw new IllegalStateException("no AMQP broker was started for this source");
        }
        return rabbit;
    }

    /** One line saying what was started, or null. */
    String describe() {
        if (kafka != null) {
            return "Kafka broker (one KRaft node, in-process) at " + kafka.bootstrap();
        }
        if (rabbit != null) {
            return "AMQP 0-9-1 broker (Apache Qpid Broker-J, in-process) at 127.0.0.1:" + rabbit.port();
        }
        return null;
    }

    @Override
    public void close() {
        if (kafka != null) {
            kafka.close();
        }
        if (rabbit != null) {
            rabbit.close();
        }
    }
}
