package io.github.deferlock.consumer.internal;

import java.time.Duration;

/** Waits; tests pass a fake that records the waits and moves a fake clock instead. */
@FunctionalInterface
public interface Sleeper {
    /** The real one: {@link Thread#sleep(Duration)}-like, in milliseconds. */
    Sleeper SYSTEM = d -> Thread.sleep(Math.max(0, d.toMillis()), d.toNanosPart() % 1_000_000);

    /** Waits {@code d}. */
    void sleep(Duration d) throws InterruptedException;
}
