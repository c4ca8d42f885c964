package io.github.deferlock.consumer.internal;

import io.github.deferlock.consumer.ConsumerSettings;
import io.github.deferlock.redis.internal.HandlerThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A consumer's handler threads with their {@link KeyedLanes} and {@link InFlight} count: the broker binding
 * {@linkplain #submit submits} each delivery to the lane of its key, a handler thread runs it while the consumer
 * keeps going, and {@link #stop} waits for what runs (the graceful drain) and then ends the threads. Work that was
 * queued but had not started when the consumer stopped is handed to {@code dropped} instead (the broker delivers
 * it again). Threadsafe.
 *
 * <p>Ordered, work of one key runs one at a time in submission order and different keys run in parallel (on
 * {@code concurrency} lanes; keys share a lane by hash). Unordered, any free handler thread takes the next work.
 *
 * @param <W> the work item
 */
public final class HandlerLanes<W> {
    private final ExecutorService executor;
    private final KeyedLanes<W> lanes;
    private final InFlight active = new InFlight();
    private final BooleanSupplier keepGoing;
    private final Consumer<? super W> work;
    private final Consumer<? super W> dropped;

    /**
     * Starts {@code settings.concurrency()} handler threads named after {@code name} (platform or virtual, as the
     * settings say) draining lanes, when the settings have an {@code orderKey}, or one shared queue.
     */
    public HandlerLanes(
            String name,
            ConsumerSettings<?, ?> settings,
            BooleanSupplier keepGoing,
            Consumer<? super W> work,
            Consumer<? super W> dropped) {
        this.keepGoing = keepGoing;
        this.work = work;
        this.dropped = dropped;
        this.executor = HandlerThreads.create(name, settings.concurrency(), settings.virtualThreads());
        this.lanes = new KeyedLanes<>(settings.concurrency(), settings.orderKey() != null, executor, this::run);
    }

    /** Queues {@code item} on the lane of {@code hash} (a key's hash; ignored when unordered). */
    public void submit(int hash, W item) {
        lanes.submit(hash, item);
    }

    /** How many items run now. */
    public int running() {
        return active.running();
    }

    private void run(W item) {
        active.enter(); // before the check: stop() either sees this item running or the item sees the stop
        try {
            if (keepGoing.getAsBoolean()) {
                work.accept(item);
                return;
            }
        } finally {
            active.exit();
        }
        dropped.accept(item);
    }

    /**
     * Waits until no item runs or {@code deadlineNanos} ({@link System#nanoTime()} based) passed, then ends the
     * handler threads (interrupting those still running). Call it once keepGoing is false.
     *
     * @return true when every running item finished in time
     */
    public boolean stop(long deadlineNanos) {
        boolean drained = active.awaitIdle(deadlineNanos);
        executor.shutdownNow();
        if (!drained) {
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return drained;
    }
}
