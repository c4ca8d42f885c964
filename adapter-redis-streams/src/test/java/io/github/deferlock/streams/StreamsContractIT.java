package io.github.deferlock.streams;

import io.github.deferlock.consumer.contract.AdapterContract;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractMessage;
import io.github.deferlock.testing.RedisServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.resps.StreamPendingSummary;

/**
 * The adapter contract on Redis Streams. The stream lives on its own redis-server (the broker: AOF on, restarted
 * with SIGTERM), apart from the one the locks and deferrals use, so the contract's Redis outage and broker restart
 * are two faults. Four consumer threads ({@code deferlock.contract.streams.concurrency}, default 4): a key's
 * messages keep their order on its lane (the handler's lock key) while other keys run in parallel.
 */
final class StreamsContractIT extends AdapterContract {
    private static RedisServer broker;
    private static RedisClient client;

    @BeforeAll
    static void startBroker() {
        broker = RedisServer.builder().appendOnly(true).start();
        client = broker.newClient();
    }

    @AfterAll
    static void stopBroker() {
        client.close();
        broker.close();
    }

    @Override
    protected String adapter() {
        return "redis-streams";
    }

    @Override
    protected Class<? extends ConsumerStarter> starter() {
        return StreamsStarter.class;
    }

    @Override
    protected int concurrency() {
        return Integer.getInteger("deferlock.contract.streams.concurrency", 4);
    }

    @Override
    protected List<String> openChannel(String name) {
        return List.of(Integer.toString(broker.port()), name);
    }

    @Override
    protected void produce(List<String> args, List<ContractMessage> messages) {
        StreamProducer p = StreamProducer.builder(client, args.get(1)).build();
        for (ContractMessage m : messages) {
            p.add(m);
        }
    }

    @Override
    protected void restartBroker() {
        broker.restart();
    }

    @Override
    protected long deadLetters(List<String> args) {
        return client.xlen(args.get(1) + ":dead");
    }

    @Override
    protected boolean settled(List<String> args, long total) {
        StreamPendingSummary s = client.xpending(args.get(1), StreamsStarter.GROUP);
        return s.getTotal() == 0;
    }
}
