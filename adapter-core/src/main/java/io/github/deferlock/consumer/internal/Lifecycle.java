package io.github.deferlock.consumer.internal;

/**
 * The start/close rules every consumer follows: {@code start} once, never after {@code close}; {@code close} runs
 * once, and a second call returns what the first one returned (whether the drain finished in time). Threadsafe:
 * guarded by this object's monitor.
 */
public final class Lifecycle {
    private final String what;
    private boolean started;
    private boolean closing;
    private Boolean closeResult;

    /** {@code what} names the consumer in errors, e.g. {@code "consumer of queue 'orders'"}. */
    public Lifecycle(String what) {
        this.what = what;
    }

    /**
     * Marks the start.
     *
     * @throws IllegalStateException when already started or closed
     */
    public synchronized void start() {
        if (started || closing) {
            throw new IllegalStateException(what + " was already started or closed");
        }
        started = true;
    }

    /** True once started. */
    public synchronized boolean started() {
        return started;
    }

    /**
     * Begins the close. Returns null for the first call (it must then {@link #closed(boolean) report} its result);
     * a later call waits for the first one to finish and returns its result.
     */
    public synchronized Boolean beginClose() {
        if (!closing) {
            closing = true;
            return null;
        }
        while (closeResult == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return closeResult;
    }

    /** The first close finished; {@code drained}: every running handler finished within its timeout. */
    public synchronized boolean closed(boolean drained) {
        closeResult = drained;
        notifyAll();
        return drained;
    }
}
