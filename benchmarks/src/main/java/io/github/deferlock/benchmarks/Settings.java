package io.github.deferlock.benchmarks;

import java.time.Duration;

/**
 * How long and how big each benchmark runs. {@link #full()} is what docs/benchmarks.md comes from (≥ 5 rounds
 * per side, side order shuffled each round), {@link #quick()} keeps every metric id in under three minutes,
 * {@link #smoke()} proves the harness end to end in about a minute (its figures mean nothing).
 *
 * @param mode the name shown in the report
 * @param rounds rounds per side; each round runs every side once, in a fresh random order
 * @param warmup warm-up of each side in each round (not measured)
 * @param measure measured time of each side in each round (timed loops)
 * @param contended measured time of each contended run
 * @param openLoop measured time of each open-loop run
 * @param drainJobs jobs drained per side and round
 * @param latenessWindow how long jobs fall due at the stated rate
 * @param latenessDelay the delay every lateness job is added with
 * @param idleWindow the idle-cost window of each round (60 s in full mode; see {@link #idleRounds()})
 * @param memoryJobs pending jobs of the memory run
 * @param faultJobs jobs of the SIGKILL run
 * @param visibility the visibility timeout of the fault and slow-handler runs
 * @param conflictWindow measured time of each conflict workload
 * @param benchmarkRequests requests of a {@code redis-benchmark -c 1} probe (4 × that at -c 8 or -P 16)
 * @param adapterMessages messages per side and round of the broker-adapter runs ({@code adapter.*})
 */
record Settings(
        String mode,
        int rounds,
        Duration warmup,
        Duration measure,
        Duration contended,
        Duration openLoop,
        int drainJobs,
        Duration latenessWindow,
        Duration latenessDelay,
        Duration idleWindow,
        int memoryJobs,
        int faultJobs,
        Duration visibility,
        Duration conflictWindow,
        int benchmarkRequests,
        int adapterMessages) {

    static Settings full() {
        return new Settings(
                "full",
                5,
                Duration.ofSeconds(1),
                Duration.ofSeconds(2),
                Duration.ofSeconds(4),
                Duration.ofSeconds(4),
                20_000,
                Duration.ofSeconds(6),
                Duration.ofSeconds(1),
                Duration.ofSeconds(60),
                100_000,
                50,
                Duration.ofSeconds(2),
                Duration.ofSeconds(8),
                20_000,
                2_400);
    }

    /**
     * Rounds of the idle-cost run: at most 2, since each is a 60 s window in full mode and the figure is a count
     * (commands per second), not a timing; the window's length, not more rounds, is what steadies it.
     */
    int idleRounds() {
        return Math.min(rounds, 2);
    }

    /** Warm-up of each {@code queue.schedule.*} round (the schedules' first fires; not measured). */
    Duration scheduleWarmup() {
        return switch (mode) {
            case "full" -> Duration.ofSeconds(5);
            case "quick" -> Duration.ofSeconds(2);
            default -> Duration.ofSeconds(1);
        };
    }

    /** The measured window of each {@code queue.schedule.*} round: whole seconds of slots. */
    Duration scheduleWindow() {
        return switch (mode) {
            case "full" -> Duration.ofSeconds(10);
            case "quick" -> Duration.ofSeconds(3);
            default -> Duration.ofSeconds(1);
        };
    }

    static Settings quick() {
        return new Settings(
                "quick",
                1,
                Duration.ofMillis(200),
                Duration.ofMillis(400),
                Duration.ofMillis(600),
                Duration.ofMillis(600),
                3_000,
                Duration.ofMillis(800),
                Duration.ofMillis(300),
                Duration.ofMillis(1500),
                5_000,
                20,
                Duration.ofMillis(500),
                Duration.ofMillis(1000),
                5_000,
                800);
    }

    static Settings smoke() {
        return new Settings(
                "smoke",
                1,
                Duration.ofMillis(100),
                Duration.ofMillis(200),
                Duration.ofMillis(300),
                Duration.ofMillis(300),
                500,
                Duration.ofMillis(400),
                Duration.ofMillis(200),
                Duration.ofMillis(500),
                1_000,
                8,
                Duration.ofMillis(500),
                Duration.ofMillis(500),
                1_000,
                200);
    }
}
