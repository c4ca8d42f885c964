package io.github.deferlock.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Keeps what a schedule with a violation recorded, so it can be read after the run: the recorder's event lines
 * (the checker's input, {@link History}) and each client JVM's output (stack traces of {@code client-crash},
 * the library's error log lines). A replay repeats the faults, not the timing, so this is often the only
 * evidence. Stateless.
 */
final class Evidence {
    /** Where evidence goes unless {@code -Dsoak.keep=DIR} says otherwise: under the module's build output. */
    static final Path DEFAULT_ROOT = Path.of("fault-soak", "target", "soak-violations");

    private Evidence() {}

    /** The directory the runner keeps evidence in ({@code -Dsoak.keep}, else {@link #DEFAULT_ROOT}). */
    static Path root() {
        String dir = System.getProperty("soak.keep");
        return dir == null || dir.isBlank() ? DEFAULT_ROOT : Path.of(dir);
    }

    /**
     * Writes {@code events.txt} (one event line each) and {@code <client>.txt} per client JVM (its output) into
     * a new directory {@code seed-<seed>-<topology>} under {@code root} (a numbered suffix when it exists).
     *
     * @return the directory written
     * @throws UncheckedIOException when it cannot be written
     */
    static Path keep(Path root, long seed, String topology, List<String> events, Map<String, List<String>> outputs) {
        try {
            Files.createDirectories(root);
            Path dir = root.resolve("seed-" + seed + "-" + topology);
            for (int n = 2; Files.exists(dir); n++) {
                dir = root.resolve("seed-" + seed + "-" + topology + "-" + n);
            }
            Files.createDirectories(dir);
            Files.write(dir.resolve("events.txt"), events, StandardCharsets.UTF_8);
            for (Map.Entry<String, List<String>> client : outputs.entrySet()) {
                Files.write(dir.resolve(client.getKey() + ".txt"), client.getValue(), StandardCharsets.UTF_8);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the evidence of seed " + seed + " under " + root, e);
        }
    }
}
