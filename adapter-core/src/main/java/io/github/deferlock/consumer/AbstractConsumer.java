package io.github.deferlock.consumer;

import io.github.deferlock.consumer.internal.Lifecycle;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;

/**
 * The lifecycle every conflict-aware consumer shares, whatever its broker: {@link #start()} once, {@link #close()}
 * once (a second call returns what the first returned), {@link #isRunning()} in between. Each adapter binds its
 * broker in {@link #doStart()} and {@link #doClose(long)}. Threadsafe.
 *
 * @param <C> the adapter's consumer type, which {@link #start()} returns
 */
public abstract class AbstractConsumer<C extends AbstractConsumer<C>> implements AutoCloseable {
    /** How long {@link #close()} waits for running handlers. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final Lifecycle lifecycle;
    private volatile boolean running;

    /** {@code what} names the consumer in errors, e.g. {@code "consumer of queue 'orders'"}. */
    protected AbstractConsumer(String what) {
        this.lifecycle = new Lifecycle(what);
    }

    /**
     * Starts consuming: connects or subscribes as the adapter's class comment says, and starts the handler threads.
     *
     * @return this consumer
     * @throws IllegalStateException when already started or closed
     */
    public final C start() {
        synchronized (this) {
            lifecycle.start();
            running = true;
            try {
                doStart();
            } catch (RuntimeException | Error e) {
                running = false;
                throw e;
            }
        }
        @SuppressWarnings("unchecked")
        C self = (C) this;
        return self;
    }

    /** Binds the broker and starts the threads; called once, under this object's monitor, with running true. */
    protected abstract void doStart();

    /** True between {@link #start()} and {@link #close()}. */
    public final boolean isRunning() {
        return running;
    }

    /** Marks this consumer as no longer running (its broker loop ended); the close still runs when called. */
    protected final void stopRunning() {
        running = false;
    }

    /** True once {@link #start()} was called. */
    protected final boolean wasStarted() {
        return lifecycle.started();
    }

    /** Closes with a 30 s timeout; see {@link #close(Duration)}. */
    @Override
    public final void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Stops taking messages, waits up to {@code timeout} for the running handlers to finish and be acknowledged
     * (committed), then lets go of the rest, which the broker delivers again. A message waiting for Redis or for
     * its retry is let go at once, unacknowledged. Idempotent: a second call waits for the first and returns what
     * it returned.
     *
     * @return true when every running handler finished within the timeout
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public final boolean close(Duration timeout) {
        Require.notNegative("timeout", timeout);
        Boolean earlier = lifecycle.beginClose();
        if (earlier != null) {
            return earlier;
        }
        running = false;
        boolean drained = false;
        try {
            drained = doClose(System.nanoTime() + timeout.toNanos());
        } finally {
            lifecycle.closed(drained);
        }
        return drained;
    }

    /**
     * Stops the broker binding and drains the handlers until {@code deadlineNanos} ({@link System#nanoTime()}
     * based); called once, with running already false, also when the consumer was never started ({@link
     * #wasStarted()}).
     *
     * @return true when every running handler finished in time
     */
    protected abstract boolean doClose(long deadlineNanos);
}
