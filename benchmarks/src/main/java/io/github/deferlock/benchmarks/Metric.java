package io.github.deferlock.benchmarks;

import java.util.List;

/**
 * One metric id: its unit, which direction is better, the sides measured and the targets it is held to.
 *
 * @param id the key in results.json
 * @param unit the unit of every side's figure
 * @param higherIsBetter whether a larger figure is better
 * @param description what is measured, one line
 * @param sides the sides measured, in report order
 * @param targets the targets; empty when the figure is only reported
 */
record Metric(
        String id, String unit, boolean higherIsBetter, String description, List<String> sides, List<Target> targets) {

    String better() {
        return higherIsBetter ? "higher" : "lower";
    }

    /**
     * The group of the id: the text before its first dot ({@code lock}, {@code queue}, ...), except the permits
     * and rate-limit ids of issue 32 ({@code limits.permits.*}, {@code limits.rate.*}), which are {@code
     * limits.keys} and not the physical limits of {@code redis-benchmark}.
     */
    String group() {
        if (id.startsWith("limits.permits.") || id.startsWith("limits.rate.")) {
            return "limits.keys";
        }
        return id.substring(0, id.indexOf('.'));
    }

    /**
     * A target: deferlock against a peer's figure times a factor, or against an absolute bound.
     *
     * @param peer the peer side, or null for an absolute bound
     * @param value the factor (peer) or the bound (absolute)
     */
    record Target(String peer, double value) {

        static Target ratio(String peer, double factor) {
            return new Target(peer, factor);
        }

        static Target absolute(double bound) {
            return new Target(null, bound);
        }

        String describe(Metric metric) {
            String op = metric.higherIsBetter() ? "≥" : "≤";
            if (peer == null) {
                return op + " " + Report.number(value) + " " + metric.unit();
            }
            return op + " " + Report.number(value) + " × " + peer;
        }
    }
}
