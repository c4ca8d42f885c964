package io.github.deferlock.consumer.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-key lanes: {@code n} queues, each drained in order by one task on the handler threads, so work of one key
 * (same hash) runs one at a time, in the order it was submitted, while other keys run on the other lanes.
 * Unordered, the {@code n} tasks drain one shared queue instead: any free thread takes the next item. A task ends
 * only when its thread is interrupted (the executor shut down): whatever {@code work} throws, even an {@link
 * Error}, is logged and the lane goes on. Threadsafe.
 *
 * @param <W> the work item
 */
public final class KeyedLanes<W> {
    private static final Logger LOG = LoggerFactory.getLogger(KeyedLanes.class);

    private final List<BlockingQueue<W>> lanes = new ArrayList<>();

    /** Starts {@code n} lanes on {@code executor}, each running {@code work} for its items one after the other. */
    public KeyedLanes(int n, ExecutorService executor, Consumer<? super W> work) {
        this(n, true, executor, work);
    }

    /**
     * Starts {@code n} tasks on {@code executor} running {@code work}: one lane each when {@code ordered}, else
     * all of them on one shared queue ({@link #submit} then ignores the hash).
     */
    public KeyedLanes(int n, boolean ordered, ExecutorService executor, Consumer<? super W> work) {
        for (int i = 0; i < (ordered ? n : 1); i++) {
            lanes.add(new LinkedBlockingQueue<>());
        }
        for (int i = 0; i < n; i++) {
            BlockingQueue<W> lane = lanes.get(i % lanes.size());
            executor.execute(() -> drain(lane, work));
        }
    }

    /** Queues {@code item} on the lane of {@code hash}. */
    public void submit(int hash, W item) {
        lanes.get(Math.floorMod(hash, lanes.size())).add(item);
    }

    private static <W> void drain(BlockingQueue<W> lane, Consumer<? super W> work) {
        while (true) {
            W w;
            try {
                w = lane.take();
            } catch (InterruptedException e) {
                return; // the consumer is done with its lanes
            }
            try {
                work.accept(w);
            } catch (Throwable e) { // an Error too: a lane that ended would stall its keys for good
                LOG.error("unexpected failure on a handler thread; its lane goes on", e);
            }
        }
    }
}
