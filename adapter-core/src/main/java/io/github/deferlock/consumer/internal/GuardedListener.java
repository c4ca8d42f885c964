package io.github.deferlock.consumer.internal;

import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.consumer.ConsumerListener;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a {@link ConsumerListener} so that one that throws is logged and ignored: it never changes what happens
 * to a message. The adapter's own listener type (Kafka's commits and rebalances, Streams' reclaims) goes through
 * {@link #call(Consumer)}. Threadsafe when the listener is.
 *
 * @param <L> the adapter's listener type
 */
public final class GuardedListener<L extends ConsumerListener> {
    private static final Logger LOG = LoggerFactory.getLogger(GuardedListener.class);

    private final L listener;

    /** Guards {@code listener}. */
    public GuardedListener(L listener) {
        this.listener = listener;
    }

    /** Calls {@code call} on the listener, logging and ignoring what it throws. */
    public void call(Consumer<? super L> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            LOG.warn("a {} threw; ignored", listener.getClass().getName(), e);
        }
    }

    /** See {@link ConsumerListener#onHandled}. */
    public void handled(String id, Outcome outcome, Duration took) {
        call(l -> l.onHandled(id, outcome, took));
    }

    /** See {@link ConsumerListener#onAcked}. */
    public void acked(String id) {
        call(l -> l.onAcked(id));
    }

    /** See {@link ConsumerListener#onFailed}. */
    public void failed(String id, int attempt, Throwable error) {
        call(l -> l.onFailed(id, attempt, error));
    }

    /** See {@link ConsumerListener#onRedisUnavailable}. */
    public void redisUnavailable(String id, Throwable error) {
        call(l -> l.onRedisUnavailable(id, error));
    }

    /** See {@link ConsumerListener#onDeadLettered}. */
    public void deadLettered(String id, String reason) {
        call(l -> l.onDeadLettered(id, reason));
    }
}
