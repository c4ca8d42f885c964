package io.github.deferlock.benchmarks;

import java.io.PrintStream;
import java.util.Locale;

/** Live progress lines on stderr: elapsed time, metric, side, figure. */
final class Progress {

    private static final long START = System.nanoTime();
    private static volatile PrintStream out = System.err;

    private Progress() {}

    static void quiet(boolean on) {
        out = on ? new PrintStream(PrintStream.nullOutputStream()) : System.err;
    }

    static void line(String format, Object... args) {
        double t = (System.nanoTime() - START) / 1e9;
        out.printf(Locale.ROOT, "[%6.1fs] %s%n", t, String.format(Locale.ROOT, format, args));
        out.flush();
    }

    static void figure(String id, String side, double value, String unit) {
        line("%-36s %-10s %14s %s", id, side, Report.number(value), unit);
    }
}
