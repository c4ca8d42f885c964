package io.github.deferlock.rabbitmq;

import io.github.deferlock.testing.QpidBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The adapter contract on AMQP 0-9-1 ({@link RabbitContract}): Qpid Broker-J in this JVM (durable queues in a
 * Derby store, so a restart keeps them).
 */
final class RabbitContractIT extends RabbitContract {
    private static QpidBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = QpidBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Override
    protected String adapter() {
        return "rabbitmq";
    }

    @Override
    int port() {
        return broker.port();
    }

    @Override
    protected void restartBroker() {
        broker.restart();
    }
}
