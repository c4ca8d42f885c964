package io.github.deferlock.kafka;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.consumer.contract.ConsumerStarter;
import io.github.deferlock.consumer.contract.ContractFixture;
import io.github.deferlock.consumer.contract.ContractMessage;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kafka binding's consumer (here and in the contract's consumer JVM). Broker args: bootstrap servers, topic,
 * group. A 3 s session, so a killed member's partitions move soon.
 */
@SuppressWarnings("exports") // a test class: the contract types live in the test-jar, outside the module
public final class KafkaStarter implements ConsumerStarter {

    /** Made by reflection. */
    public KafkaStarter() {}

    @Override
    public AutoCloseable start(List<String> args, ContractFixture f, ConsumerListener l, int concurrency) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", args.get(0));
        config.put("group.id", args.get(2));
        config.put("session.timeout.ms", 3_000);
        config.put("heartbeat.interval.ms", 500);
        config.put("reconnect.backoff.max.ms", 500);
        return TopicConsumer.builder(config, args.get(1), ContractMessage.class, f.handler)
                .concurrency(concurrency)
                .commitInterval(Duration.ofMillis(100))
                .maxAttempts(ContractFixture.MAX_ATTEMPTS)
                .retryBackoff(ContractFixture.RETRY_BACKOFF)
                .listener(new TopicListener() {
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
