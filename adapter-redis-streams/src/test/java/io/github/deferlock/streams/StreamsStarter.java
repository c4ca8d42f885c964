package io.github.deferlock.streams;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractFixture;
import io.github.deferlock.consumer.contract.ContractMessage;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * The Streams binding's consumer (here and in the contract's consumer JVM). Broker args: the stream's Redis port,
 * the stream. Every consumer has the same name, so the one started after a kill reads the killed one's pending
 * entries first, in order; {@code claimIdle} is longer than the contract's 30 s outage, so no entry still running
 * is claimed.
 */
@SuppressWarnings("exports") // a test class: the contract types live in the test-jar, outside the module
public final class StreamsStarter implements ConsumerStarter {
    static final String GROUP = "g";
    static final String CONSUMER = "contract";

    /** Made by reflection. */
    public StreamsStarter() {}

    @Override
    public AutoCloseable start(List<String> args, ContractFixture f, ConsumerListener l, int concurrency) {
        RedisClient broker = RedisClient.builder()
                .hostAndPort(new HostAndPort("127.0.0.1", Integer.parseInt(args.get(0))))
                .build();
        StreamConsumer<ContractMessage> c = StreamConsumer.builder(
                        broker, args.get(1), GROUP, ContractMessage.class, f.handler)
                .consumerName(CONSUMER)
                .concurrency(concurrency)
                .maxAttempts(ContractFixture.MAX_ATTEMPTS)
                .retryBackoff(ContractFixture.RETRY_BACKOFF)
                .claimIdle(Duration.ofSeconds(45))
                .listener(new StreamListener() {
                    @Override
                    public void onHandled(String id, Outcome outcome, Duration took) {
                        l.onHandled(id, outcome, took);
                    }

                    @Override
                    public void onFailed(String id, int attempt, Throwable error) {
                        l.onFailed(id, attempt, error);
                    }

                    @Override
                    public void onRedisUnavailable(String id, Throwable error) {
                        l.onRedisUnavailable(id, error);
                    }

                    @Override
                    public void onDeadLettered(String id, String reason) {
                        l.onDeadLettered(id, reason);
                    }
                })
                .build()
                .start();
        return () -> {
            c.close();
            broker.close();
        };
    }
}
