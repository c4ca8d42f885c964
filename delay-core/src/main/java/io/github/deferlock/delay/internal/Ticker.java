package io.github.deferlock.delay.internal;

/**
 * A nanosecond time source for measuring elapsed time, like {@link System#nanoTime()}: only differences
 * between two readings mean anything. The worker's mechanisms read time only through one, so their unit tests
 * move a fake clock instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

    /** {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /** The current reading, in nanoseconds. */
    long read();

    /** The earlier of two readings (readings may wrap around, so they are compared by difference). */
    static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    /** The later of two readings. */
    static long later(long a, long b) {
        return a - b >= 0 ? a : b;
    }
}
