package io.github.deferlock.streams;

import io.github.deferlock.consumer.ConsumerListener;

/**
 * Hears what a {@link StreamConsumer} does with stream entries, for logs and metrics: the events of {@link
 * ConsumerListener} (the same in every adapter; message ids are entry ids), plus reclaims. Lock events (acquired,
 * conflict, deferred, duplicate skipped) go to the {@link io.github.deferlock.conflict.ConflictListener} of the
 * {@link io.github.deferlock.conflict.ConflictAwareHandler}. Every method has a no-op default. Methods are called
 * on the thread that did the work, must be fast and must not throw (an exception thrown here is logged and
 * ignored).
 *
 * <p>Implementations must be threadsafe: one listener serves every consumer thread.
 */
public interface StreamListener extends ConsumerListener {

    /** {@code count} pending entries of idle consumers were claimed ({@code XAUTOCLAIM}) by this consumer. */
    default void onReclaimed(int count) {}
}
