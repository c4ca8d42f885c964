package io.github.deferlock.soak;

/**
 * One broken promise found in a schedule's history.
 *
 * @param seed the seed whose schedule reproduces it ({@code ./soak --seed <seed>})
 * @param check which check failed: {@code token-order}, {@code overlap}, {@code lost-enqueue}, {@code
 *     handled-after-ack}, {@code stuck}, {@code client-crash}
 * @param detail what was seen
 */
record Violation(long seed, String check, String detail) {
    @Override
    public String toString() {
        return "VIOLATION seed=" + seed + " " + check + ": " + detail;
    }
}
