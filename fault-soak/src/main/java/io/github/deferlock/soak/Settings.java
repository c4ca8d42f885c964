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
 * @param topology the deployment the load runs against
 */
record Settings(
        int clients,
        long loadMs,
        int minFaults,
        int maxFaults,
        long leaseMs,
        long visibilityMs,
        long settleMaxMs,
        Topology topology) {

    /** The defaults: 3 clients, 4 s of load, 2 to 5 faults, lease 1.5 s, visibility 2 s, settle ≤ 15 s. */
    static Settings defaults() {
        return defaults(Topology.STANDALONE);
    }

    /**
     * The defaults on {@code topology}: as {@link #defaults()}, with the topology's settle maximum ({@link
     * Topology#settleMaxMs()}: 15 s standalone, 30 s on Sentinel and Cluster).
     */
    static Settings defaults(Topology topology) {
        return new Settings(3, 4000, 2, 5, 1500, 2000, topology.settleMaxMs(), topology);
    }

    Settings {
        if (clients < 1 || loadMs < 1000 || minFaults < 0 || maxFaults < minFaults || leaseMs < 30) {
            throw new IllegalArgumentException("bad soak settings");
        }
        java.util.Objects.requireNonNull(topology, "topology cannot be null");
        if (settleMaxMs < visibilityMs) {
            throw new IllegalArgumentException("the settle period must be at least the visibility timeout");
        }
    }
}
