package io.github.deferlock.consumer;

import com.fasterxml.jackson.databind.ObjectReader;
import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.delay.Backoff;
import java.util.function.Function;

/**
 * The settings every conflict-aware consumer runs with, whatever its broker: what a {@link ConsumerBuilder}
 * built. Immutable and threadsafe.
 *
 * @param handler the conflict-aware handler each message goes to
 * @param reader reads a message from its JSON body
 * @param concurrency how many handler threads
 * @param virtualThreads whether they are virtual threads (Java 21+)
 * @param maxAttempts on which failed attempt a message goes to the dead letters
 * @param retryBackoff the wait after a failed attempt before the next one
 * @param listener hears what happens to each message
 * @param orderKey the key whose messages run one at a time in delivery order; null when the adapter keeps no
 *     per-key order of its own (Kafka orders by the record key)
 * @param <M> the message type
 * @param <L> the adapter's listener type
 */
public record ConsumerSettings<M, L extends ConsumerListener>(
        ConflictAwareHandler<M> handler,
        ObjectReader reader,
        int concurrency,
        boolean virtualThreads,
        int maxAttempts,
        Backoff retryBackoff,
        L listener,
        Function<? super M, String> orderKey) {

    /**
     * The hash of the lane {@code message} runs on: its order key's, or 0 without one.
     *
     * @throws IllegalArgumentException when the order key function returns null
     */
    public int laneOf(M message) {
        if (orderKey == null) {
            return 0;
        }
        String key = orderKey.apply(message);
        if (key == null) {
            throw new IllegalArgumentException("the orderKey function returned null for " + message);
        }
        return key.hashCode();
    }
}
