package io.github.deferlock.benchmarks;

import static io.github.deferlock.benchmarks.Metric.Target.absolute;
import static io.github.deferlock.benchmarks.Metric.Target.ratio;
import static io.github.deferlock.benchmarks.Sides.BULLMQ;
import static io.github.deferlock.benchmarks.Sides.DEFERLOCK;
import static io.github.deferlock.benchmarks.Sides.FAIR;
import static io.github.deferlock.benchmarks.Sides.FENCED;
import static io.github.deferlock.benchmarks.Sides.FENCED_TUNED;
import static io.github.deferlock.benchmarks.Sides.HOLD_CEILING;
import static io.github.deferlock.benchmarks.Sides.RAW;
import static io.github.deferlock.benchmarks.Sides.RAW_FENCED;
import static io.github.deferlock.benchmarks.Sides.REDISSON;
import static io.github.deferlock.benchmarks.Sides.REDISSON_TUNED;
import static io.github.deferlock.benchmarks.Sides.REDIS_BENCHMARK;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The metric ids of issue 19 and their targets (data); results.json holds exactly these keys. */
final class Metrics {

    /** The contended multi-process runs: N JVMs × 1 thread. */
    static final List<Integer> JVMS = List.of(2, 4, 8);
    /** Open-loop loads, percent of the measured maximum. */
    static final List<Integer> LOADS = List.of(25, 50, 75);
    /** Lateness due rates, jobs/s. */
    static final List<Integer> DUE_RATES = List.of(500, 2000);

    /**
     * Due rates measured again with the server at {@code hz 100}: Redis checks blocked clients' timeouts in its
     * cron, {@code hz} times a second, and BullMQ's workers wait for the next delayed job in a blocking pop
     * whose timeout is that job's delay, so their lateness follows {@code hz}; deferlock's does not.
     */
    static final List<Integer> HZ100_DUE_RATES = List.of(500);
    /** Percentiles of an open-loop run and their id suffixes. */
    static final List<String> PERCENTILES = List.of("p50", "p99", "p999", "max");

    static final List<Metric> ALL = build();

    private Metrics() {}

    private static List<Metric> build() {
        List<Metric> m = new ArrayList<>();
        for (int t : List.of(1, 8)) {
            m.add(higher(
                    "lock.uncontended.t" + t,
                    "cycles/s",
                    "acquire+release of an own key, " + t + " thread(s)",
                    Sides.LOCKS,
                    ratio(RAW_FENCED, 0.95),
                    ratio(FENCED, t == 1 ? 1.5 : 3),
                    ratio(FENCED_TUNED, 1),
                    ratio(RAW, 0.85)));
            m.add(lower(
                    "lock.uncontended.t" + t + ".commands",
                    "commands/cycle",
                    "server-executed commands per cycle (INFO commandstats delta, incl. commands inside scripts)",
                    Sides.LOCKS));
            m.add(lower(
                    "lock.uncontended.t" + t + ".redisCpu",
                    "µs/cycle",
                    "redis-server CPU per cycle (INFO cpu used_cpu_user+sys delta)",
                    Sides.LOCKS));
        }
        List<String> contended = new ArrayList<>(Sides.CONTENDED);
        contended.add(HOLD_CEILING);
        m.add(higher(
                "lock.contended.1jvm8t.throughput",
                "cycles/s",
                "1 JVM × 8 threads, one key, 1 ms critical section",
                contended));
        m.add(lower("lock.contended.1jvm8t.p99wait", "ms", "p99 wait to acquire, 1 JVM × 8 threads", Sides.CONTENDED));
        m.add(higher(
                "lock.contended.1jvm8t.jain",
                "index",
                "Jain fairness index of the acquisitions across the 8 threads",
                Sides.CONTENDED));
        for (int n : JVMS) {
            String p = "lock.contended." + n + "jvm.";
            m.add(higher(
                    p + "throughput",
                    "cycles/s",
                    n + " JVMs × 1 thread, one key, 1 ms critical section",
                    contended,
                    ratio(FAIR, 1.2)));
            // issue 30: from 4 JVMs half of RFairLock's p99 can be at or below the FIFO queue's own floor
            List<String> waiting = new ArrayList<>(Sides.CONTENDED);
            if (n > 2) {
                waiting.add(Sides.FIFO_FLOOR);
            }
            m.add(lower(
                    p + "p99wait",
                    "ms",
                    "p99 wait to acquire, " + n + " JVMs × 1 thread",
                    waiting,
                    n > 2 ? ratio(Sides.FIFO_FLOOR, 1.2) : ratio(FAIR, 0.5)));
            m.add(higher(
                    p + "jain",
                    "index",
                    "Jain fairness index of the acquisitions across the " + n + " processes",
                    Sides.CONTENDED,
                    absolute(0.9)));
        }
        openLoop(m, "lock.openloop", "acquire", Sides.OPEN_LOCKS, FENCED);
        m.add(higher(
                "queue.enqueue.t1",
                "jobs/s",
                "synchronous add with a 1 h delay, one thread (raw: a bare ZADD round trip)",
                Sides.QUEUES,
                ratio(RAW, 0.9),
                ratio(BULLMQ, 1.2)));
        m.add(lower(
                "queue.enqueue.t1.commands",
                "commands/job",
                "server-executed commands per add (INFO commandstats delta)",
                Sides.QUEUES));
        m.add(lower("queue.enqueue.t1.redisCpu", "µs/job", "redis-server CPU per add (INFO cpu delta)", Sides.QUEUES));
        m.add(higher(
                "queue.enqueue.bulk",
                "jobs/s",
                "bulk add of 1,000 jobs with a 1 h delay per call, one thread",
                Sides.QUEUES,
                ratio(BULLMQ, 1.5)));
        m.add(higher(
                "queue.drain.t8",
                "jobs/s",
                "drain of due jobs at concurrency 8: claimed, empty handler, acked",
                Sides.CONSUMING,
                ratio(BULLMQ, 2)));
        m.add(lower(
                "queue.drain.t8.commands",
                "commands/job",
                "server-executed commands per drained job (INFO commandstats delta)",
                Sides.CONSUMING));
        m.add(lower(
                "queue.drain.t8.redisCpu",
                "µs/job",
                "redis-server CPU per drained job (INFO cpu delta)",
                Sides.CONSUMING));
        m.add(higher(
                "queue.drain.t8.limited",
                "jobs/s",
                "queue.drain.t8 on deferlock with a rate limit and concurrency keys configured but never reached",
                QueueRuns.LIMITED_SIDES,
                ratio(QueueRuns.UNLIMITED, 0.9)));
        m.add(lower(
                "queue.drain.t8.limited.commands",
                "commands/job",
                "server-executed commands per drained job with the limits (INFO commandstats delta)",
                QueueRuns.LIMITED_SIDES));
        m.add(lower(
                "queue.drain.t8.limited.redisCpu",
                "µs/job",
                "redis-server CPU per drained job with the limits (INFO cpu delta)",
                QueueRuns.LIMITED_SIDES));
        openLoop(m, "queue.openloop", "enqueue", Sides.OPEN_QUEUES, REDISSON);
        for (int r : DUE_RATES) {
            String p = "queue.lateness." + r + ".";
            String what = "jobs falling due at " + r + "/s, 2 consumers; handler start − due time, one clock";
            m.add(lower(p + "p50", "ms", "p50 lateness, " + what, Sides.CONSUMING));
            m.add(lower(p + "p99", "ms", "p99 lateness, " + what, Sides.CONSUMING, absolute(5), ratio(BULLMQ, 1)));
            m.add(lower(p + "max", "ms", "max lateness, " + what, Sides.CONSUMING));
            m.add(lower(p + "early", "jobs", "jobs handled before their due time, " + what, Sides.CONSUMING));
        }
        for (int r : HZ100_DUE_RATES) {
            String p = "queue.lateness.hz100." + r + ".";
            String what = "jobs falling due at " + r + "/s, 2 consumers, the server at `hz 100` (default 10);"
                    + " handler start − due time, one clock";
            m.add(lower(p + "p50", "ms", "p50 lateness, " + what, Sides.CONSUMING));
            m.add(lower(p + "p99", "ms", "p99 lateness, " + what, Sides.CONSUMING, absolute(5), ratio(BULLMQ, 1)));
        }
        m.add(lower(
                "queue.idle.clientCommandsPerSec",
                "commands/s",
                "commands one idle consumer sends (MONITOR, commands inside scripts not counted)",
                Sides.CONSUMING));
        m.add(lower(
                "queue.idle.serverCommandsPerSec",
                "commands/s",
                "commands the server executes for one idle consumer (INFO commandstats, incl. inside scripts)",
                Sides.CONSUMING,
                absolute(1)));
        m.add(lower(
                "queue.memory.bytesPerJob",
                "bytes",
                "INFO used_memory delta per pending job, 100-byte payload",
                Sides.QUEUES,
                ratio(BULLMQ, 1)));
        m.add(lower(
                "queue.replay.bytesPerJob",
                "bytes",
                "replay records left by a full drain at concurrency 8 (MEMORY USAGE of the replay keys ÷ jobs)",
                List.of(DEFERLOCK),
                absolute(10)));
        m.add(lower(
                "queue.priority.claimAt1M",
                "µs/job",
                "Redis time (INFO commandstats usec) per claimed job of claim(100) with 10^6 jobs pending over 10"
                        + " priority levels; " + QueueRuns.PRIORITY_SMALL + ": the same claim at 10^3 pending",
                List.of(DEFERLOCK, QueueRuns.PRIORITY_SMALL),
                // O(log n): log(10^6) ÷ log(10^3) = 2 is the most an O(log n) claim may grow from 10^3 to 10^6
                // pending jobs; a claim that scanned the pending jobs would grow about 1,000 times
                ratio(QueueRuns.PRIORITY_SMALL, 2)));
        m.add(lower(
                "queue.schedule.fireLateness.p99",
                "ms",
                "p99 lateness of " + ScheduleRuns.SCHEDULES + " fixed-rate schedules firing every second, one worker"
                        + " process; handler start − the slot's time (from the job id), one clock",
                List.of(DEFERLOCK),
                // every slot of a second fired and handled before the next second's slots fall due
                absolute(1000)));
        m.add(lower(
                "queue.schedule.fireLateness.p50",
                "ms",
                "p50 lateness of the same fires (queue.schedule.fireLateness.p99)",
                List.of(DEFERLOCK)));
        m.add(higher(
                "queue.schedule.firesPerSec",
                "fires/s",
                "fires handled per second of the measured window (expected " + ScheduleRuns.SCHEDULES + "/s: one per"
                        + " schedule and second); a lagging ticker shows here",
                List.of(DEFERLOCK),
                absolute(ScheduleRuns.SCHEDULES)));
        featureCost(m);
        m.add(lower(
                "queue.fault.redeliveryMs",
                "ms",
                "after SIGKILL of a worker process holding jobs: kill to redelivered handler start, p99",
                List.of(DEFERLOCK, REDISSON, BULLMQ)));
        m.add(lower(
                "queue.fault.lost",
                "jobs",
                "jobs in flight at the SIGKILL never handled again",
                List.of(DEFERLOCK, REDISSON, BULLMQ),
                absolute(0)));
        m.add(lower(
                "queue.slowHandler.runs",
                "runs",
                "runs of one job whose handler takes 10 × the visibility timeout",
                List.of(DEFERLOCK, BULLMQ),
                absolute(1)));
        m.add(higher(
                "conflict.defer.goodputRatio",
                "ratio",
                "messages completed inside the window (cold + hot) with a 10% hot key ÷ without; 8 threads both",
                List.of(DEFERLOCK, ConflictRuns.TIMED, "sleep-retry", "throw"),
                absolute(0.95)));
        m.add(lower(
                "conflict.defer.hotBacklog",
                "messages",
                "hot messages arrived but not completed at the window's end",
                List.of(DEFERLOCK, ConflictRuns.TIMED, "sleep-retry", "throw")));
        m.add(lower(
                "conflict.defer.reDeferrals",
                "per message",
                "re-deferrals per deferred message in the hot-key workload of conflict.defer.goodputRatio",
                List.of(DEFERLOCK, ConflictRuns.TIMED),
                absolute(0.05)));
        m.add(lower(
                "conflict.defer.hotOnConsumers",
                "share",
                "hot messages run on a consumer thread ÷ all hot messages run, in the DEFER runs (informational)",
                List.of(DEFERLOCK, ConflictRuns.TIMED)));
        m.add(lower(
                "conflict.defer.drainAfterRelease",
                "ms",
                "release of a key with 200 parked messages (2 ms handler each) to the last one's end, 1 worker thread",
                List.of(DEFERLOCK, ConflictRuns.TIMED)));
        m.add(lower(
                "conflict.defer.drainOverhead",
                "ms",
                "conflict.defer.drainAfterRelease minus the handlers' own run time: what draining adds to the work",
                List.of(DEFERLOCK, ConflictRuns.TIMED),
                absolute(100)));
        m.add(lower(
                "conflict.defer.hotCompletion.p99",
                "ms",
                "arrival to handler end of hot messages (deferred ones waited for after the window)",
                List.of(DEFERLOCK, ConflictRuns.TIMED, "sleep-retry")));
        for (String broker : AdapterRuns.BROKERS) {
            m.add(higher(
                    AdapterRuns.id(broker),
                    "ratio",
                    "cold messages per second with 10% of the messages on 3 held keys ÷ without; " + AdapterRuns.THREADS
                            + " handler threads both",
                    List.of(DEFERLOCK),
                    absolute(0.9)));
        }
        keyLimits(m);
        for (Limits.Probe p : Limits.PROBES) {
            m.add(higher(p.id(), "ops/s", p.description(), List.of(REDIS_BENCHMARK)));
        }
        return List.copyOf(m);
    }

    /**
     * Issue 31: what jobs that use none of its features pay for them, this build against the build of the commit
     * before (the {@link FeatureCostRuns#BASELINE} side), in the same rounds ({@code ./bench --compare-with REV}).
     * Targets: within 5 % for the throughputs, 2 % for the memory (see {@link FeatureCostRuns}).
     */
    private static void featureCost(List<Metric> m) {
        String p = FeatureCostRuns.PREFIX;
        String b = FeatureCostRuns.BASELINE;
        List<String> sides = List.of(DEFERLOCK, b);
        m.add(higher(
                p + "enqueue.t1",
                "jobs/s",
                "queue.enqueue.t1's deferlock workload, this build and the baseline build, child JVMs in turn",
                sides,
                ratio(b, 0.95)));
        m.add(lower(
                p + "enqueue.t1.commands",
                "commands/job",
                "server-executed commands per add of the same runs (INFO commandstats delta)",
                sides));
        m.add(higher(
                p + "drain.t8",
                "jobs/s",
                "queue.drain.t8's deferlock workload, this build and the baseline build, child JVMs in turn",
                sides,
                ratio(b, 0.95)));
        m.add(lower(
                p + "drain.t8.commands",
                "commands/job",
                "server-executed commands per drained job of the same runs (INFO commandstats delta)",
                sides));
        m.add(lower(
                p + "memory.bytesPerJob",
                "bytes",
                "queue.memory.bytesPerJob's deferlock workload, this build and the baseline build",
                sides,
                ratio(b, 1.02)));
    }

    /** Issue 32: permits against Redisson's RPermitExpirableSemaphore, the rate limiter against RRateLimiter. */
    private static void keyLimits(List<Metric> m) {
        String permits = "limits.permits.t" + KeyLimitRuns.THREADS;
        m.add(higher(
                permits,
                "cycles/s",
                "permit acquire+release, " + KeyLimitRuns.THREADS + " threads on one name with " + KeyLimitRuns.PERMITS
                        + " permits",
                KeyLimitRuns.PERMIT_SIDES,
                ratio(REDISSON, 1),
                ratio(REDISSON_TUNED, 1)));
        m.add(lower(
                permits + ".commands",
                "commands/cycle",
                "server-executed commands per permit cycle (INFO commandstats delta, incl. commands inside scripts)",
                KeyLimitRuns.PERMIT_SIDES));
        m.add(lower(
                permits + ".redisCpu",
                "µs/cycle",
                "redis-server CPU per permit cycle (INFO cpu used_cpu_user+sys delta)",
                KeyLimitRuns.PERMIT_SIDES));
        m.add(lower(
                "limits.rate.accuracy",
                "ratio",
                "a limiter at " + KeyLimitRuns.RATE + "/s polled by " + KeyLimitRuns.THREADS
                        + " threads: the most starts granted in any 1 s window ÷ the side's documented bound",
                KeyLimitRuns.RATE_SIDES,
                absolute(1)));
        m.add(higher(
                "limits.rate.throughput",
                "ratio",
                "the same runs: starts per second after the first second ÷ the rate (" + KeyLimitRuns.RATE + "/s)",
                KeyLimitRuns.RATE_SIDES,
                absolute(0.95)));
        m.add(lower(
                "limits.rate.worstWindow",
                "starts",
                "the same runs: the most starts whose reply came within one 1 s window, as the callers saw them",
                KeyLimitRuns.RATE_SIDES));
    }

    private static void openLoop(List<Metric> m, String prefix, String op, List<String> sides, String peer) {
        for (int load : LOADS) {
            for (String p : PERCENTILES) {
                String id = prefix + "." + load + "." + p;
                String d = p + " " + op + " latency from the intended start, fixed-rate arrivals at " + load
                        + "% of the slower side's maximum (same offered rate for every side)";
                if (load == 50 && p.equals("p99")) {
                    m.add(lower(id, "ms", d, sides, ratio(peer, 0.5)));
                } else {
                    m.add(lower(id, "ms", d, sides));
                }
            }
        }
    }

    static Optional<Metric> byId(String id) {
        return ALL.stream().filter(m -> m.id().equals(id)).findFirst();
    }

    static Metric get(String id) {
        return byId(id).orElseThrow(() -> new IllegalArgumentException("unknown metric id " + id));
    }

    private static Metric higher(String id, String unit, String description, List<String> sides, Metric.Target... t) {
        return new Metric(id, unit, true, description, sides, List.of(t));
    }

    private static Metric lower(String id, String unit, String description, List<String> sides, Metric.Target... t) {
        return new Metric(id, unit, false, description, sides, List.of(t));
    }
}
