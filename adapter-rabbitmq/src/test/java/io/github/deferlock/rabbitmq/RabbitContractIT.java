package io.github.deferlock.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.github.deferlock.consumer.contract.AdapterContract;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractMessage;
import io.github.deferlock.testing.QpidBroker;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The adapter contract on AMQP 0-9-1: Qpid Broker-J in this JVM (durable queues in a Derby store, so a restart
 * keeps them). Four consumer threads ({@code deferlock.contract.rabbitmq.concurrency}, default 4): a key's
 * messages keep their order on its lane (the handler's lock key) while other keys run in parallel.
 */
final class RabbitContractIT extends AdapterContract {
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
    protected Class<? extends ConsumerStarter> starter() {
        return RabbitStarter.class;
    }

    @Override
    protected int concurrency() {
        return Integer.getInteger("deferlock.contract.rabbitmq.concurrency", 4);
    }

    @Override
    protected List<String> openChannel(String name) throws Exception {
        try (Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            ch.queueDeclare(name, true, false, false, null);
            ch.queueDeclare(name + ".dead", true, false, false, null);
        }
        return List.of(Integer.toString(broker.port()), name);
    }

    @Override
    protected void produce(List<String> args, List<ContractMessage> messages) throws Exception {
        try (Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            ch.txSelect(); // committed 500 at a time: one store transaction each, not one per message
            RabbitProducer p = new RabbitProducer(ch, args.get(1));
            int sent = 0;
            for (ContractMessage m : messages) {
                p.publish(m);
                if (++sent % 500 == 0) {
                    ch.txCommit();
                }
            }
            ch.txCommit();
        }
    }

    @Override
    protected void restartBroker() {
        broker.restart();
    }

    @Override
    protected long deadLetters(List<String> args) throws Exception {
        return messageCount(args.get(1) + ".dead");
    }

    @Override
    protected boolean settled(List<String> args, long total) throws Exception {
        return messageCount(args.get(1)) == 0;
    }

    private static long messageCount(String queue) throws Exception {
        try (Connection conn = Fixture.amqp(broker.port()).newConnection();
                Channel ch = conn.createChannel()) {
            return ch.messageCount(queue);
        }
    }
}
