package io.github.deferlock.soak;

/**
 * Sizes and timeouts of every schedule. Immutable.
 *
 * @param clients client JVMs at a time; each runs one lock holder per resource, one producer and one worker
 * @param loadMs how long producers and lock holders run, faults included
 * @param minFaults fewest faults per schedule
 * @param maxFaults most faults per schedule
 * @param leaseMs the lock lease (renewed by the watchdog every third of it)
 * @param visibilityMs the queue's visibility timeout
 * @param settleMaxMs the longest wait, after the faults stopped, for the queue to drain
 */
record Settings(
        int clients, long loadMs, int minFaults, int maxFaults, long leaseMs, long visibilityMs, long settleMaxMs) {

    /** The defaults: 3 clients, 4 s of load, 2 to 5 faults, lease 1.5 s, visibility 2 s, settle ≤ 15 s. */
    static Settings defaults() {
        return new Settings(3, 4000, 2, 5, 1500, 2000, 15_000);
    }

    Settings {
        if (clients < 1 || loadMs < 1000 || minFaults < 0 || maxFaults < minFaults || leaseMs < 30) {
            throw new IllegalArgumentException("bad soak settings");
        }
        if (settleMaxMs < visibilityMs) {
            throw new IllegalArgumentException("the settle period must be at least the visibility timeout");
        }
    }
}
