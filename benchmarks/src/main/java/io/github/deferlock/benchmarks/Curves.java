package io.github.deferlock.benchmarks;

import static io.github.deferlock.benchmarks.Sides.BULLMQ;
import static io.github.deferlock.benchmarks.Sides.DEFERLOCK;
import static io.github.deferlock.benchmarks.Sides.FAIR;
import static io.github.deferlock.benchmarks.Sides.FENCED;
import static io.github.deferlock.benchmarks.Sides.RAW;
import static io.github.deferlock.benchmarks.Sides.RAW_FENCED;
import static io.github.deferlock.benchmarks.Sides.REDISSON;
import static io.github.deferlock.benchmarks.Sides.RLOCK;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The curve ids of issue 30 and the points each mode draws them at (data); results.json's {@code curves} holds
 * exactly these keys. {@code --quick} draws a few points, the full run all of them.
 */
final class Curves {

    static final String PREFIX = "curve.";

    /** The lock sides of the thread and name curves: deferlock, the bare-Jedis ceilings and Redisson's locks. */
    static final List<String> LOCKS = List.of(DEFERLOCK, RAW, RAW_FENCED, RLOCK, FENCED, FAIR);
    /** The lock sides that wait for a held key (raw and raw-fenced only spin): the JVM curve. */
    static final List<String> WAITING_LOCKS = List.of(DEFERLOCK, RLOCK, FENCED, FAIR);
    /** The lock sides of the offered-load curves. */
    static final List<String> OPEN_LOCKS = List.of(DEFERLOCK, RAW, RLOCK, FENCED);
    /** The queue sides that add (raw: a bare ZADD). */
    static final List<String> ADDING = List.of(DEFERLOCK, RAW, REDISSON, BULLMQ);
    /** The queue sides with consumers. */
    static final List<String> CONSUMING = List.of(DEFERLOCK, REDISSON, BULLMQ);
    /** The queue sides of the client-cost curves (a JVM's own counters: BullMQ runs in Node). */
    static final List<String> JAVA_ADDING = List.of(DEFERLOCK, RAW, REDISSON);

    static final List<Curve> ALL = build();

    private Curves() {}

    /** Threads of {@code curve.lock.threads.*}. */
    static List<Integer> threads(Settings s) {
        return s.mode().equals("full") ? List.of(1, 2, 4, 8, 16, 32, 64) : List.of(1, 4, 16, 64);
    }

    /** Child JVMs of {@code curve.lock.jvms.*}. */
    static List<Integer> jvms(Settings s) {
        return s.mode().equals("full") ? List.of(1, 2, 3, 4, 6, 8) : List.of(1, 4, 8);
    }

    /** Payload bytes of {@code curve.queue.payload.*}. */
    static List<Integer> payloads(Settings s) {
        return s.mode().equals("full") ? List.of(100, 1024, 4096, 16_384, 65_536) : List.of(100, 4096, 65_536);
    }

    /** Pending jobs of {@code curve.queue.depth.*}. */
    static List<Integer> depths(Settings s) {
        return switch (s.mode()) {
            case "full" -> List.of(1_000, 10_000, 100_000, 1_000_000);
            case "quick" -> List.of(1_000, 10_000, 100_000);
            default -> List.of(1_000, 10_000);
        };
    }

    /** Distinct lock names of {@code curve.lock.names.*}. */
    static List<Integer> names(Settings s) {
        return s.mode().equals("full")
                ? List.of(100, 1_000, 10_000, 100_000, 1_000_000)
                : List.of(100, 10_000, 1_000_000);
    }

    /** Offered loads of {@code curve.*.load.*}, percent of each side's own capacity. */
    static List<Integer> loads(Settings s) {
        return s.mode().equals("full") ? List.of(10, 20, 30, 40, 50, 60, 70, 80, 90) : List.of(10, 50, 90);
    }

    /** Rounds of every curve: at most 3 (each point of each side is a window of its own). */
    static int rounds(Settings s) {
        return Math.min(s.rounds(), 3);
    }

    private static List<Curve> build() {
        List<Curve> c = new ArrayList<>();
        String threads = "threads (one JVM, each its own key)";
        c.add(higher(
                "curve.lock.threads.throughput",
                "cycles/s",
                threads,
                true,
                "lock()+unlock() of an own key per thread, closed loop",
                LOCKS));
        c.add(lower(
                "curve.lock.threads.p99",
                "µs",
                threads,
                true,
                "p99 of one lock()+unlock() cycle in the same runs",
                LOCKS));
        c.add(lower(
                "curve.lock.threads.clientCpu",
                "µs/cycle",
                threads,
                true,
                "client CPU per cycle in the same runs: the benchmark JVM's process CPU time (every thread, the"
                        + " clients' I/O and watchdog threads included) ÷ cycles",
                LOCKS));
        c.add(lower(
                "curve.lock.threads.allocated",
                "bytes/cycle",
                threads,
                true,
                "client heap allocated per cycle in the same runs: getThreadAllocatedBytes summed over the JVM's"
                        + " threads ÷ cycles",
                LOCKS));
        String jvms = "JVMs (1 thread each, one key)";
        c.add(higher(
                "curve.lock.jvms.throughput",
                "cycles/s",
                jvms,
                false,
                "N child JVMs × 1 thread lock one key, 1 ms critical section",
                WAITING_LOCKS));
        c.add(lower(
                "curve.lock.jvms.p99wait", "ms", jvms, false, "p99 wait to acquire in the same runs", WAITING_LOCKS));
        String names = "distinct lock names";
        c.add(higher(
                "curve.lock.names.throughput",
                "cycles/s",
                names,
                true,
                "8 threads, each cycle on a name drawn at random from the thread's share of N names",
                LOCKS));
        String load = "offered load (% of the side's own capacity)";
        c.add(lower(
                "curve.lock.load.p50",
                "ms",
                load,
                false,
                "p50 acquire latency from the intended start, fixed-rate arrivals, 8 worker threads",
                OPEN_LOCKS));
        c.add(lower("curve.lock.load.p99", "ms", load, false, "p99 of the same runs", OPEN_LOCKS));
        String payload = "payload (bytes)";
        c.add(higher(
                "curve.queue.payload.enqueue",
                "jobs/s",
                payload,
                true,
                "synchronous add with a 1 h delay, one thread",
                ADDING));
        c.add(higher(
                "curve.queue.payload.drain",
                "jobs/s",
                payload,
                true,
                "drain of due jobs at concurrency 8, empty handler, ack included",
                CONSUMING));
        c.add(lower(
                "curve.queue.payload.clientCpu",
                "µs/job",
                payload,
                true,
                "client CPU per add in the enqueue runs (the JVM's process CPU time ÷ adds)",
                JAVA_ADDING));
        c.add(lower(
                "curve.queue.payload.allocated",
                "bytes/job",
                payload,
                true,
                "client heap allocated per add in the enqueue runs (getThreadAllocatedBytes over the JVM's"
                        + " threads ÷ adds)",
                JAVA_ADDING));
        String depth = "pending jobs (not due)";
        c.add(higher(
                "curve.queue.depth.enqueue",
                "jobs/s",
                depth,
                true,
                "synchronous add with a 1 h delay, one thread, with N jobs already pending",
                ADDING));
        c.add(higher(
                "curve.queue.depth.drain",
                "jobs/s",
                depth,
                true,
                "drain of due jobs at concurrency 8 beside N pending jobs that are not due: the claim must stay"
                        + " flat",
                CONSUMING));
        c.add(lower(
                "curve.queue.load.p50",
                "ms",
                load,
                false,
                "p50 add latency from the intended start, fixed-rate arrivals, 8 worker threads",
                JAVA_ADDING));
        c.add(lower("curve.queue.load.p99", "ms", load, false, "p99 of the same runs", JAVA_ADDING));
        return List.copyOf(c);
    }

    static Optional<Curve> byId(String id) {
        return ALL.stream().filter(c -> c.id().equals(id)).findFirst();
    }

    static Curve get(String id) {
        return byId(id).orElseThrow(() -> new IllegalArgumentException("unknown curve id " + id));
    }

    private static Curve higher(String id, String unit, String x, boolean logX, String d, List<String> sides) {
        return new Curve(id, unit, true, x, logX, d, sides);
    }

    private static Curve lower(String id, String unit, String x, boolean logX, String d, List<String> sides) {
        return new Curve(id, unit, false, x, logX, d, sides);
    }
}
