package io.github.deferlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * What the benchmark JVM itself spends, for the client-cost curves of issue 30: its process CPU time ({@code
 * com.sun.management.OperatingSystemMXBean}: every thread, the clients' I/O, watchdog and GC threads included)
 * and the heap its threads allocated ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}, summed
 * over the live threads). Take one {@link #now()} at a window's start and one at its end, with the threads that
 * did the work still alive at both (a thread that ends inside the window takes its bytes with it).
 *
 * @param cpuNanos the process CPU time so far
 * @param allocated thread id → bytes allocated so far
 */
record ClientCost(long cpuNanos, Map<Long, Long> allocated) {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static ClientCost now() {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> m = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                m.put(ids[i], bytes[i]);
            }
        }
        return new ClientCost(OS.getProcessCpuTime(), m);
    }

    /** Process CPU µs per operation since {@code before}. */
    double cpuMicrosPer(ClientCost before, long ops) {
        return (cpuNanos - before.cpuNanos) / 1000.0 / Math.max(1, ops);
    }

    /** Bytes allocated per operation since {@code before}; a thread born in between counts from zero. */
    double bytesPer(ClientCost before, long ops) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : allocated.entrySet()) {
            sum += e.getValue() - before.allocated.getOrDefault(e.getKey(), 0L);
        }
        return sum / (double) Math.max(1, ops);
    }
}
