package io.github.deferlock.benchmarks;

import java.time.Duration;

/**
 * How long and how big each benchmark runs. {@link #full()} is what docs/benchmarks.md comes from, {@link
 * #quick()} keeps every metric id in under three minutes, {@link #tiny()} is the schema test's smoke run.
 *
 * @param mode the name shown in the report
 * @param rounds how many times the sides of a lock benchmark take turns (interleaved, so load from other
 *     processes hits every side alike); figures pool or take the median over the rounds
 * @param warmup warm-up time of each side of a fixed-duration benchmark
 * @param measure measured time of each side of a fixed-duration benchmark, split over the rounds
 * @param jmhWarmups JMH warm-up iterations
 * @param jmhIterations JMH measured iterations
 * @param jmhIterationTime JMH iteration length
 * @param jmhForks JMH forks (0 runs in this JVM)
 * @param enqueueTime measured time of each enqueue side
 * @param drainJobs jobs pre-filled for {@code queue.throughput.t8}
 * @param latenessJobs jobs of the lateness run
 * @param latenessMinDelay the shortest delay of the lateness run
 * @param latenessSpread the lateness delays are spread uniformly over {@code [min, min + spread)}
 * @param idleWindow the INFO commandstats window of the idle run
 * @param memoryJobs pending jobs of the memory run
 * @param conflictWindow measured time of each conflict workload
 * @param probe whether to count the Redis commands per lock cycle first (INFO commandstats)
 */
record Settings(
        String mode,
        int rounds,
        Duration warmup,
        Duration measure,
        int jmhWarmups,
        int jmhIterations,
        Duration jmhIterationTime,
        int jmhForks,
        Duration enqueueTime,
        int drainJobs,
        int latenessJobs,
        Duration latenessMinDelay,
        Duration latenessSpread,
        Duration idleWindow,
        int memoryJobs,
        Duration conflictWindow,
        boolean probe) {

    static Settings full() {
        return new Settings(
                "full",
                3,
                Duration.ofSeconds(2),
                Duration.ofSeconds(8),
                2,
                3,
                Duration.ofSeconds(1),
                1,
                Duration.ofSeconds(6),
                20_000,
                10_000,
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(10),
                100_000,
                Duration.ofSeconds(10),
                true);
    }

    static Settings quick() {
        return new Settings(
                "quick",
                1,
                Duration.ofMillis(500),
                Duration.ofSeconds(2),
                1,
                2,
                Duration.ofMillis(700),
                1,
                Duration.ofSeconds(1),
                5_000,
                3_000,
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofSeconds(3),
                20_000,
                Duration.ofSeconds(3),
                false);
    }

    static Settings tiny() {
        return new Settings(
                "tiny",
                1,
                Duration.ofMillis(100),
                Duration.ofMillis(300),
                0,
                1,
                Duration.ofMillis(200),
                0,
                Duration.ofMillis(200),
                300,
                200,
                Duration.ofMillis(100),
                Duration.ofMillis(200),
                Duration.ofMillis(500),
                1_000,
                Duration.ofMillis(500),
                false);
    }
}
