package io.github.deferlock.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * One metric id of issue 6: its unit, which direction is better, and the targets it is held to.
 *
 * @param id the key in results.json
 * @param unit the unit of every side's figure
 * @param higherIsBetter whether a larger figure is better
 * @param description what is measured, one line
 * @param targets the targets; empty when the figure is only reported
 */
record Metric(String id, String unit, boolean higherIsBetter, String description, List<Target> targets) {

    /** The sides of a metric, in report order. */
    static final List<String> SIDES = List.of("deferlock", "raw", "redisson", "seed");

    String better() {
        return higherIsBetter ? "higher" : "lower";
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

        /** The bound deferlock's figure is compared with, or empty when the peer was not measured. */
        OptionalDouble bound(Results.Entry entry) {
            if (peer == null) {
                return OptionalDouble.of(value);
            }
            Double p = entry.sides().get(peer);
            return p == null ? OptionalDouble.empty() : OptionalDouble.of(p * value);
        }

        /** True when met, false when missed, null when it cannot be judged (a side is missing). */
        Boolean met(Metric metric, Results.Entry entry) {
            Double ours = entry.sides().get("deferlock");
            OptionalDouble b = bound(entry);
            if (ours == null || b.isEmpty() || ours.isNaN()) {
                return null;
            }
            return metric.higherIsBetter() ? ours >= b.getAsDouble() : ours <= b.getAsDouble();
        }

        String describe(Metric metric) {
            String op = metric.higherIsBetter() ? "≥" : "≤";
            if (peer == null) {
                return op + " " + Report.number(value) + " " + metric.unit();
            }
            return op + " " + String.format(Locale.ROOT, "%s", Report.number(value)) + " × " + peer;
        }
    }
}
