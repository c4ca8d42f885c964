package io.github.deferlock.cli;

import io.github.deferlock.inspect.OpsText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Text output for a terminal. Names, payloads and error texts are attacker input: {@link #safe} escapes every
 * control and format character (ANSI escapes, CR/LF, bidi overrides) so nothing printed can move the cursor,
 * recolour the terminal or disguise itself; the rule is {@link OpsText#safe}, which the dashboard's audit log
 * shares. Stateless.
 */
final class Text {
    private Text() {}

    /** {@code s} with backslash, control and format characters written as Java escapes ({@link OpsText#safe}). */
    static String safe(String s) {
        return OpsText.safe(s);
    }

    /** {@link #safe} text cut to {@code max} characters, with "…" when cut. */
    static String cut(String s, int max) {
        String t = safe(s);
        return t.length() <= max ? t : t.substring(0, max - 1) + "…";
    }

    /**
     * The age of the oldest parked item of a lock: a duration, {@code -} when nothing is parked, {@code unknown}
     * when the head records no park time.
     */
    static String parkedAge(io.github.deferlock.inspect.LockView l) {
        if (l.parked() == 0) {
            return "-";
        }
        return l.oldestParkedAge().map(Text::duration).orElse("unknown");
    }

    /** A duration for people: {@code 850ms}, {@code 12.3s}, {@code 4m05s}, {@code 2h03m}, {@code 3d04h}. */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format("%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format("%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }

    /** Rows as left-aligned columns separated by two spaces; the first row is the header. */
    static String table(List<List<String>> rows) {
        List<Integer> widths = new ArrayList<>();
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                int w = row.get(i).codePointCount(0, row.get(i).length());
                if (widths.size() <= i) {
                    widths.add(w);
                } else {
                    widths.set(i, Math.max(widths.get(i), w));
                }
            }
        }
        StringBuilder b = new StringBuilder();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                line.append(cell);
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths.get(i) - cell.codePointCount(0, cell.length()) + 2));
                }
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }

    /** {@code label  value} lines with the values aligned. */
    static String fields(List<String[]> pairs) {
        int w = 0;
        for (String[] p : pairs) {
            w = Math.max(w, p[0].length());
        }
        StringBuilder b = new StringBuilder();
        for (String[] p : pairs) {
            b.append(p[0])
                    .append(" ".repeat(w - p[0].length() + 2))
                    .append(p[1])
                    .append('\n');
        }
        return b.toString();
    }
}
