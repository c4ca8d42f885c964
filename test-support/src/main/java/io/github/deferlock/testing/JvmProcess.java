package io.github.deferlock.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A separate JVM running a {@code main} class from the test classpath, for tests that need a second
 * process to crash ({@link #kill()}), freeze ({@link #pause()}) or compete. Its standard output and error
 * are collected line by line; {@link #awaitLine(Predicate, Duration)} waits for a marker such as {@code
 * "READY"}.
 *
 * <p>Instances are threadsafe.
 */
public final class JvmProcess implements AutoCloseable {

    private final Process process;
    private final String name;
    private final List<String> lines = new ArrayList<>();

    private JvmProcess(Process process, String name) {
        this.process = process;
        this.name = name;
        Thread reader = new Thread(this::readOutput, "jvm-output-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -cp <this test classpath> mainClass args...} with a 256 MB heap.
     *
     * @throws UncheckedIOException when the JVM cannot be started
     */
    public static JvmProcess start(Class<?> mainClass, String... args) {
        return start(mainClass, List.of("-Xmx256m"), args);
    }

    /** Like {@link #start(Class, String...)} with the given JVM options instead of the default heap size. */
    public static JvmProcess start(Class<?> mainClass, List<String> jvmOptions, String... args) {
        return startWith(Path.of(System.getProperty("java.home"), "bin", "java"), mainClass, jvmOptions, args);
    }

    /**
     * Like {@link #start(Class, List, String...)} with another {@code java} executable, e.g. one from {@link
     * Jdks#javaAtLeast(int)} to run a virtual-thread test on a newer JDK.
     */
    public static JvmProcess startWith(Path java, Class<?> mainClass, List<String> jvmOptions, String... args) {
        Objects.requireNonNull(java, "java cannot be null");
        Objects.requireNonNull(mainClass, "mainClass cannot be null");
        Objects.requireNonNull(jvmOptions, "jvmOptions cannot be null");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            return new JvmProcess(p, mainClass.getSimpleName() + "-" + p.pid());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for " + mainClass.getName(), e);
        }
    }

    private void readOutput() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the process is gone
        } finally {
            synchronized (lines) {
                lines.notifyAll();
            }
        }
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** True while the process runs (a paused process counts as running). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Every line printed so far. */
    public List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /**
     * Waits until a line matching {@code test} has been printed and returns the first such line.
     *
     * @throws IllegalStateException when the process exits or the timeout passes first; the message holds
     *     what it printed
     */
    public String awaitLine(Predicate<String> test, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                Optional<String> hit = lines.stream().filter(test).findFirst();
                if (hit.isPresent()) {
                    return hit.get();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !hasUnread())) {
                    throw new IllegalStateException(name
                            + (process.isAlive()
                                    ? " printed no matching line within " + timeout
                                    : " exited (" + process.exitValue() + ") without a matching line")
                            + "; output:\n" + String.join("\n", lines));
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + name, e);
                }
            }
        }
    }

    /** Waits for a line starting with {@code prefix}. */
    public String awaitLine(String prefix, Duration timeout) {
        return awaitLine(l -> l.startsWith(prefix), timeout);
    }

    private boolean hasUnread() {
        try {
            return process.getInputStream().available() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits for the process to exit and returns its exit code. */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        name + " still runs after " + timeout + "; output:\n" + String.join("\n", output()));
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name, e);
        }
    }

    /** SIGKILL: the process dies at once, running no shutdown hooks. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP: the process freezes, its sockets stay open. */
    public void pause() {
        Signals.send(pid(), "STOP");
    }

    /** SIGCONT: a paused process runs on. */
    public void resume() {
        Signals.send(pid(), "CONT");
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                Signals.send(pid(), "CONT");
            } catch (RuntimeException ignored) {
                // gone already
            }
            kill();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
