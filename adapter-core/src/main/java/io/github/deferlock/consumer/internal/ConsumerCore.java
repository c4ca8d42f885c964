package io.github.deferlock.consumer.internal;

import io.github.deferlock.consumer.ConsumerListener;
import io.github.deferlock.consumer.ConsumerSettings;

/**
 * What every adapter builds from its settings, once: the settings themselves, the payload reader, the guarded
 * listener and the delivery runner (the failure policy). Immutable and threadsafe.
 *
 * @param settings the settings the builder made
 * @param payloads reads each message from its JSON body
 * @param listener the adapter's listener, guarded
 * @param runner runs each message through the handler and the failure policy
 * @param <M> the message type
 * @param <L> the adapter's listener type
 */
public record ConsumerCore<M, L extends ConsumerListener>(
        ConsumerSettings<M, L> settings,
        PayloadReader<M> payloads,
        GuardedListener<L> listener,
        DeliveryRunner<M> runner) {

    /** The core for {@code settings}; {@code source} names the topic, stream or queue in logs. */
    public static <M, L extends ConsumerListener> ConsumerCore<M, L> of(
            ConsumerSettings<M, L> settings, String source) {
        GuardedListener<L> listener = new GuardedListener<>(settings.listener());
        return new ConsumerCore<>(
                settings,
                new PayloadReader<>(settings.reader()),
                listener,
                new DeliveryRunner<>(settings, listener, source));
    }
}
