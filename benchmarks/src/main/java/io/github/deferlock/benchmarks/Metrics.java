package io.github.deferlock.benchmarks;

import static io.github.deferlock.benchmarks.Metric.Target.absolute;
import static io.github.deferlock.benchmarks.Metric.Target.ratio;

import java.util.List;
import java.util.Optional;

/** The metric ids of issue 6 and their targets; results.json holds exactly these keys. */
final class Metrics {

    static final List<Metric> ALL = List.of(
            higher(
                    "lock.uncontended.t1",
                    "cycles/s",
                    "acquire+release of an own key, 1 thread (JMH)",
                    ratio("raw", 0.95),
                    ratio("redisson", 1.3)),
            higher(
                    "lock.uncontended.t8",
                    "cycles/s",
                    "acquire+release of an own key per thread, 8 threads (JMH)",
                    ratio("raw", 0.8),
                    ratio("redisson", 3)),
            higher(
                    "lock.contended.hold1ms.throughput",
                    "cycles/s",
                    "8 threads, one key, 1 ms critical section, one JVM; raw = in-process fair ReentrantLock",
                    ratio("raw", 0.85)),
            lower("lock.contended.hold1ms.p99wait", "ms", "p99 wait to acquire in the hold1ms workload", absolute(15)),
            higher(
                    "lock.contended.2jvm.throughput",
                    "cycles/s",
                    "2 processes × 4 threads, one key, 1 ms critical section",
                    ratio("redisson", 1)),
            lower(
                    "lock.contended.2jvm.p99wait",
                    "ms",
                    "p99 wait to acquire in the 2-JVM workload",
                    ratio("redisson", 0.5)),
            higher("queue.enqueue.t1", "jobs/s", "synchronous enqueue with a delay, one thread", ratio("redisson", 3)),
            higher("queue.enqueue.batch", "jobs/s", "pipelined batch enqueue, one thread", absolute(100_000)),
            higher("queue.throughput.t8", "jobs/s", "drain of due jobs: claimed, handled (empty), acked; 8 workers"),
            lower("queue.lateness.p50", "ms", "handler start minus due time, delays spread over 1–2 s, 2 workers"),
            lower("queue.lateness.p99", "ms", "p99 of the lateness run", absolute(5)),
            lower("queue.lateness.max", "ms", "worst lateness of the lateness run", absolute(20)),
            lower("queue.early", "jobs", "jobs handled before their due time in the lateness run", absolute(0)),
            lower(
                    "queue.idle.commandsPerSec",
                    "commands/s",
                    "Redis commands per second of one idle worker (INFO commandstats delta)",
                    absolute(1)),
            lower(
                    "queue.memory.bytesPerJob",
                    "bytes",
                    "INFO used_memory delta per pending job, 100-byte payload",
                    absolute(400)),
            higher(
                    "conflict.defer.coldThroughputRatio",
                    "ratio",
                    "cold-message throughput with a 10% hot key ÷ without one; 20 ms handler, 8 threads",
                    absolute(0.9)),
            lower(
                    "conflict.defer.hotCompletion.p99",
                    "ms",
                    "end-to-end latency of hot-key messages under DEFER (arrival to handler done)"));

    private Metrics() {}

    static Optional<Metric> byId(String id) {
        return ALL.stream().filter(m -> m.id().equals(id)).findFirst();
    }

    private static Metric higher(String id, String unit, String description, Metric.Target... targets) {
        return new Metric(id, unit, true, description, List.of(targets));
    }

    private static Metric lower(String id, String unit, String description, Metric.Target... targets) {
        return new Metric(id, unit, false, description, List.of(targets));
    }
}
