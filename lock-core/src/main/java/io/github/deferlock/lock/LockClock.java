package io.github.deferlock.lock;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}. The lock measures lease validity,
 * time waited and time held with it, so a test can move a fake clock instead of sleeping. Only differences
 * between two readings are meaningful.
 *
 * <p>Implementations must be threadsafe.
 */
@FunctionalInterface
public interface LockClock {

    /** The current reading in nanoseconds. */
    long nanoTime();

    /** The system clock, {@link System#nanoTime()}; the default. */
    static LockClock system() {
        return System::nanoTime;
    }
}
