package io.github.deferlock.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * The adapter contract ({@link RabbitContract}) against a RabbitMQ server already running on localhost:5672
 * (guest/guest), when {@value #PROPERTY}{@code =true} and one answers; skipped with one line otherwise. It is a
 * shared service, not the test's: its queues have random names and are deleted afterwards, and the main run skips
 * the broker restart ({@link #canRestartBroker()}). The server's product and version name the run in the figures.
 */
final class LocalRabbitContractIT extends RabbitContract {
    /** The system property that turns this test on (default false: CI's machine runs a RabbitMQ, CI time is short). */
    static final String PROPERTY = "deferlock.contract.localRabbit";

    private static final int PORT = 5672;
    private String server;

    /** Before each test, so that a skip shows on each with its reason (a skip in {@code @BeforeAll} shows none). */
    @BeforeEach
    void connect() {
        Assumptions.assumeTrue(
                Boolean.getBoolean(PROPERTY),
                "the contract on the local RabbitMQ is off: -D" + PROPERTY + "=true runs it");
        ConnectionFactory cf = Fixture.amqp(PORT);
        cf.setConnectionTimeout(2_000);
        try (Connection conn = cf.newConnection()) {
            server = conn.getServerProperties().get("product") + " "
                    + conn.getServerProperties().get("version");
        } catch (Exception e) {
            Assumptions.abort("no RabbitMQ on localhost:" + PORT + " (guest/guest): skipped (" + e + ")");
        }
    }

    @Override
    protected String adapter() {
        return "rabbitmq (" + server + " on localhost:" + PORT + ")";
    }

    @Override
    int port() {
        return PORT;
    }

    @Override
    protected boolean canRestartBroker() {
        return false;
    }

    @Override
    protected void restartBroker() {
        throw new UnsupportedOperationException("the local RabbitMQ is a shared service: never restarted");
    }
}
