package io.github.deferlock.rabbitmq;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractFixture;
import io.github.deferlock.consumer.contract.ContractMessage;
import java.time.Duration;
import java.util.List;

/** The RabbitMQ binding's consumer (here and in the contract's consumer JVM). Broker args: AMQP port, queue. */
@SuppressWarnings("exports") // a test class: the contract types live in the test-jar, outside the module
public final class RabbitStarter implements ConsumerStarter {

    /** Made by reflection. */
    public RabbitStarter() {}

    @Override
    public AutoCloseable start(List<String> args, ContractFixture f, ConsumerListener l, int concurrency) {
        return RabbitConsumer.builder(
                        Fixture.amqp(Integer.parseInt(args.get(0))), args.get(1), ContractMessage.class, f.handler)
                .concurrency(concurrency)
                .maxAttempts(ContractFixture.MAX_ATTEMPTS)
                .retryBackoff(ContractFixture.RETRY_BACKOFF)
                .listener(new RabbitListener() {
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
    }
}
