package io.github.deferlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code redis-server} binary the test kit runs, and where it came from.
 *
 * <p>Resolution order, decided once per JVM:
 *
 * <ol>
 *   <li>the environment variable {@code REDIS_SERVER_BIN} (or the system property {@code
 *       deferlock.redis.bin}): a path to a binary, or the word {@code embedded} to skip the {@code
 *       PATH} and use the bundled binary;
 *   <li>{@code redis-server} on the {@code PATH};
 *   <li>the binary shipped inside the {@code embedded-redis} jar (Redis 6.2), extracted once to a
 *       cache folder ({@code ~/.cache/deferlock/redis}, or the temp dir when home is not writable) and
 *       made executable.
 * </ol>
 *
 * <p>Instances are immutable and threadsafe.
 *
 * @param path the executable
 * @param version the server version it reports, e.g. {@code 7.0.15}
 * @param source how it was found: {@code REDIS_SERVER_BIN}, {@code PATH} or {@code embedded}
 */
public record RedisBinary(Path path, String version, String source) {

    /** The environment variable that picks the binary. */
    public static final String ENV = "REDIS_SERVER_BIN";

    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);
    private static final Pattern VERSION = Pattern.compile("v=([0-9][0-9.]*)");
    private static volatile RedisBinary resolved;

    /** Validates the fields. */
    public RedisBinary {
        Objects.requireNonNull(path, "path cannot be null");
        Objects.requireNonNull(version, "version cannot be null");
        Objects.requireNonNull(source, "source cannot be null");
    }

    /**
     * Returns the binary to use in this JVM, resolving it on the first call and logging which one once.
     *
     * @throws IllegalStateException when {@code REDIS_SERVER_BIN} names a file that is not executable, or
     *     no binary can be found or extracted
     */
    public static RedisBinary resolve() {
        RedisBinary r = resolved;
        if (r == null) {
            synchronized (RedisBinary.class) {
                r = resolved;
                if (r == null) {
                    r = find();
                    log.info("deferlock test-support: redis-server {} at {} (from {})", r.version, r.path, r.source);
                    resolved = r;
                }
            }
        }
        return r;
    }

    /** Returns the binary bundled in the embedded-redis jar (Redis 6.2), extracting it if needed. */
    public static RedisBinary embedded() {
        return of(extractEmbedded(), "embedded");
    }

    /** Returns the major version, e.g. 7 for {@code 7.0.15}. */
    public int majorVersion() {
        return Integer.parseInt(version.split("\\.")[0]);
    }

    /** Returns true when the version is at least {@code major.minor}. */
    public boolean atLeast(int major, int minor) {
        String[] parts = version.split("\\.");
        int maj = Integer.parseInt(parts[0]);
        int min = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return maj > major || (maj == major && min >= minor);
    }

    private static RedisBinary find() {
        String wanted = System.getProperty("deferlock.redis.bin", System.getenv(ENV));
        if (wanted != null && !wanted.isBlank()) {
            if (wanted.trim().equalsIgnoreCase("embedded")) {
                return of(extractEmbedded(), "embedded (" + ENV + "=embedded)");
            }
            Path p = Path.of(wanted.trim());
            if (!Files.isExecutable(p)) {
                throw new IllegalStateException(ENV + "='" + wanted + "' is not an executable file");
            }
            return of(p, ENV);
        }
        Path onPath = findOnPath("redis-server");
        if (onPath != null) {
            return of(onPath, "PATH");
        }
        return of(extractEmbedded(), "embedded (no redis-server on PATH)");
    }

    private static RedisBinary of(Path p, String source) {
        return new RedisBinary(p, readVersion(p), source);
    }

    private static Path findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    static String readVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(binary + " --version did not finish within 10 s");
            }
            Matcher m = VERSION.matcher(out);
            if (!m.find()) {
                throw new IllegalStateException(binary + " --version printed no version: " + out.strip());
            }
            return m.group(1);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + binary + " --version", e);
        }
    }

    /** The resource name of the bundled binary for this OS and CPU. */
    static String embeddedResourceName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm64");
        boolean x64 = arch.contains("amd64") || arch.contains("x86_64");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm) {
                return "redis-server-6.2.7-linux-arm64";
            }
            if (arch.equals("x86") || arch.equals("i386") || arch.equals("i686")) {
                return "redis-server-6.2.7-linux-386";
            }
        } else if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException("the embedded-redis jar has no redis-server for os.name='" + os + "', os.arch='"
                + arch + "'; install redis-server or set " + ENV);
    }

    private static Path extractEmbedded() {
        String name = embeddedResourceName();
        Path dir = cacheDir();
        Path target = dir.resolve(name);
        if (Files.isExecutable(target)) {
            return target;
        }
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(
                        "resource " + name + " not found: is com.github.codemonstur:embedded-redis on the classpath?");
            }
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, name, ".part");
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the bundled " + name + " to " + dir, e);
        }
    }

    private static Path cacheDir() {
        Path home = Path.of(System.getProperty("user.home", "."), ".cache", "deferlock", "redis");
        try {
            Files.createDirectories(home);
            if (Files.isWritable(home)) {
                return home;
            }
        } catch (IOException ignored) {
            // fall through to the temp dir
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "deferlock-redis-" + System.getProperty("user.name"));
    }
}
