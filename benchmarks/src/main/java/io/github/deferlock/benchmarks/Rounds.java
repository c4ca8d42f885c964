package io.github.deferlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Runs every side once per round, the side order shuffled each round, so load from other processes falls
 * on every side alike. A side that fails is reported once and skipped in later rounds.
 */
final class Rounds {

    /** Measures one side in one round. */
    @FunctionalInterface
    interface SideRun {
        void run(String side, int round) throws Exception;
    }

    /** Side → error of the sides that failed since the last {@link #takeFailures()} (for the report). */
    private static final java.util.Map<String, String> FAILURES = new java.util.concurrent.ConcurrentHashMap<>();

    /** One generator per run, seeded from the clock; the orders are printed. */
    private static final Random SHUFFLE = new Random();

    private Rounds() {}

    /** The sides that failed since the last call, with their error; clears them. */
    static java.util.Map<String, String> takeFailures() {
        java.util.Map<String, String> out = new java.util.HashMap<>(FAILURES);
        FAILURES.clear();
        return out;
    }

    /** Returns the sides that failed, with their error. */
    static List<String> run(String what, int rounds, List<String> sides, SideRun run) {
        List<String> failed = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<String> order = new ArrayList<>(sides);
            order.removeIf(s -> failed.stream().anyMatch(f -> f.startsWith(s + ": ")));
            Collections.shuffle(order, SHUFFLE);
            if (rounds > 1) {
                Progress.line("%s round %d: %s", what, round, String.join(", ", order));
            }
            for (String side : order) {
                try {
                    run.run(side, round);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                } catch (Exception | AssertionError e) {
                    Progress.line("!! %s %s failed: %s", what, side, e);
                    failed.add(side + ": " + e);
                    FAILURES.put(side, "failed: " + e);
                }
            }
        }
        return failed;
    }
}
