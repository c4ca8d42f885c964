package io.github.deferlock.consumer.contract;

import io.github.deferlock.consumer.ConsumerListener;
import java.util.List;

/**
 * How one adapter builds and starts its consumer for the contract, in the test JVM and in a consumer JVM ({@link
 * ContractConsumerMain} makes one with the public no-argument constructor). The consumer takes {@link
 * ContractMessage}s, hands them to {@code fixture.handler}, retries with {@link ContractFixture#MAX_ATTEMPTS} and
 * {@link ContractFixture#RETRY_BACKOFF}, and tells {@code listener} what happens.
 */
public interface ConsumerStarter {

    /**
     * Builds and starts a consumer.
     *
     * @param brokerArgs where the broker and the channel are, as {@link AdapterContract#openChannel} returned them
     * @param concurrency the consumer's concurrency
     * @return the started consumer; closing it stops it
     */
    AutoCloseable start(List<String> brokerArgs, ContractFixture fixture, ConsumerListener listener, int concurrency)
            throws Exception;
}
