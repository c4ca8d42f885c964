package io.github.deferlock.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds an installed JDK of at least a given feature version, for tests that need a newer JDK than the
 * one running the build (for example virtual threads need 21). Looks at the running JDK, then {@code
 * JAVA21_HOME}/{@code JAVA25_HOME}, then every JDK under {@code /usr/lib/jvm} and {@code
 * /Library/Java/JavaVirtualMachines/*}/Contents/Home}. Threadsafe; not instantiable.
 */
public final class Jdks {

    private Jdks() {}

    /** Returns the {@code java} executable of a JDK whose feature version is at least {@code minFeature}. */
    public static Optional<Path> javaAtLeast(int minFeature) {
        if (Runtime.version().feature() >= minFeature) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Stream<Path> env = Stream.of("JAVA25_HOME", "JAVA21_HOME")
                .map(System::getenv)
                .filter(v -> v != null && !v.isBlank())
                .map(Path::of);
        List<Path> candidates = Stream.concat(
                        env,
                        Stream.concat(
                                children(Path.of("/usr/lib/jvm")),
                                children(Path.of("/Library/Java/JavaVirtualMachines"))
                                        .map(p -> p.resolve("Contents/Home"))))
                .toList();
        return candidates.stream()
                .filter(home -> feature(home) >= minFeature)
                .max(Comparator.comparingInt(Jdks::feature))
                .map(home -> home.resolve("bin/java"))
                .filter(Files::isExecutable);
    }

    private static Stream<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) {
            return Stream.empty();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList().stream();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    /** The feature version written in a JDK's {@code release} file, or 0 when unknown. */
    static int feature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release)) {
            return 0;
        }
        try {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    String first = v.split("[.+-]")[0];
                    return Integer.parseInt(first.equals("1") ? v.split("\\.")[1] : first);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
