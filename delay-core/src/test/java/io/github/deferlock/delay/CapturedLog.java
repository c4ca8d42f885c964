package io.github.deferlock.delay;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Captures what the tests' SLF4J binding, slf4j-simple, logs while open: it writes every line to {@code
 * System.err} as looked up at each call (its default, uncached output choice), so a tee on {@code System.err}
 * sees the log of every thread and still passes it on. Use one at a time, in try-with-resources.
 */
final class CapturedLog implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    CapturedLog() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }

            @Override
            public void flush() {
                original.flush();
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** The captured WARN lines that contain every one of {@code parts}. */
    List<String> warnings(String... parts) {
        String text;
        synchronized (captured) {
            text = captured.toString(StandardCharsets.UTF_8);
        }
        return text.lines()
                .filter(line -> line.contains(" WARN "))
                .filter(line -> Arrays.stream(parts).allMatch(line::contains))
                .toList();
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
    }
}
