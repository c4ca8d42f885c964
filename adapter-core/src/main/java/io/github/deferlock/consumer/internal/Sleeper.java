package io.github.deferlock.consumer.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/** Waits; tests pass a fake that records the waits and moves a fake clock instead. */
@FunctionalInterface
public interface Sleeper {
    /** The real one: {@code Thread.sleep(Duration)}-like, in milliseconds. */
    Sleeper SYSTEM = d -> Thread.sleep(Math.max(0, d.toMillis()), d.toNanosPart() % 1_000_000);

    /** Waits {@code d}. */
    void sleep(Duration d) throws InterruptedException;

    /**
     * Waits until {@code until} on the clock {@code nanoTime}, in slices of at most 50 ms so that {@code keepGoing}
     * turning false ends the wait.
     *
     * @return true at {@code until}; false when {@code keepGoing} turned false or the thread was interrupted (the
     *     flag stays set)
     */
    default boolean sleepUntil(long until, LongSupplier nanoTime, BooleanSupplier keepGoing) {
        while (true) {
            if (!keepGoing.getAsBoolean()) {
                return false;
            }
            long left = until - nanoTime.getAsLong();
            if (left <= 0) {
                return true;
            }
            try {
                sleep(Duration.ofNanos(Math.min(left, 50_000_000L)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
