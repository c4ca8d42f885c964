package io.github.deferlock.benchmarks;

import java.util.List;

/**
 * One curve id of issue 30: a figure measured at a series of points (threads, payload bytes, pending jobs, ...)
 * per side, drawn as one chart with a line per side.
 *
 * @param id the key under results.json's {@code curves}; the chart is {@code docs/charts/<id>.png}
 * @param unit the unit of every point's figure (the y axis)
 * @param higherIsBetter whether a larger figure is better
 * @param x what the x axis counts, with its unit ("threads", "payload (bytes)", ...)
 * @param logX whether the x axis is logarithmic (the points grow by factors)
 * @param description what is measured, one line
 * @param sides the sides measured, in report and legend order
 */
record Curve(
        String id,
        String unit,
        boolean higherIsBetter,
        String x,
        boolean logX,
        String description,
        List<String> sides) {

    /** The folder under docs/ the charts are drawn into. */
    static final String CHART_DIR = "charts";

    /** The chart's file name. */
    String chartFile() {
        return id + ".png";
    }

    String better() {
        return higherIsBetter ? "higher" : "lower";
    }
}
