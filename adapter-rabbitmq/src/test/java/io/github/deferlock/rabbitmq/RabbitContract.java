package io.github.deferlock.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.github.deferlock.consumer.contract.AdapterContract;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The adapter contract's AMQP 0-9-1 binding, whatever the broker: a subclass says on which port it listens
 * (guest/guest on 127.0.0.1) and whether it may be restarted. Each queue is durable, named {@code
 * deferlock-<channel>} with its dead-letter queue {@code <queue>.dead}, and deleted with it after the test. Four
 * consumer threads ({@code deferlock.contract.rabbitmq.concurrency}, default 4): a key's messages keep their order
 * on its lane (the handler's lock key) while other keys run in parallel.
 */
abstract class RabbitContract extends AdapterContract {
    private final List<String> queues = new ArrayList<>();

    /** The broker's AMQP port. */
    abstract int port();

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
        String queue = "deferlock-" + name;
        try (Connection conn = Fixture.amqp(port()).newConnection();
                Channel ch = conn.createChannel()) {
            queues.add(queue);
            ch.queueDeclare(queue, true, false, false, null);
            ch.queueDeclare(queue + ".dead", true, false, false, null);
        }
        return List.of(Integer.toString(port()), queue);
    }

    @Override
    protected void produce(List<String> args, List<ContractMessage> messages) throws Exception {
        try (Connection conn = Fixture.amqp(port()).newConnection();
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
    protected long deadLetters(List<String> args) throws Exception {
        return messageCount(args.get(1) + ".dead");
    }

    @Override
    protected boolean settled(List<String> args, long total) throws Exception {
        return messageCount(args.get(1)) == 0;
    }

    @AfterEach
    void deleteQueues() throws Exception {
        if (queues.isEmpty()) {
            return;
        }
        try (Connection conn = Fixture.amqp(port()).newConnection();
                Channel ch = conn.createChannel()) {
            for (String q : queues) {
                ch.queueDelete(q);
                ch.queueDelete(q + ".dead");
            }
        }
        queues.clear();
    }

    private long messageCount(String queue) throws Exception {
        try (Connection conn = Fixture.amqp(port()).newConnection();
                Channel ch = conn.createChannel()) {
            return ch.messageCount(queue);
        }
    }
}
