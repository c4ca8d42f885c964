package io.github.deferlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The BullMQ side: a Node process running {@code benchmarks/node/bullmq-bench.mjs}, driven with one JSON
 * request per line on its stdin and one JSON answer per line on its stdout. {@code ./bench} installs the
 * pinned {@code bullmq} and {@code ioredis} packages into {@code benchmarks/node/node_modules} when missing.
 */
final class BullMq implements AutoCloseable {

    /** The pinned versions {@code ./bench} installs. */
    static final String PACKAGES = "bullmq@6.7.0 ioredis@5.11.1";

    /** The folder holding the script and its node_modules; set by {@link Bench} from {@code --out}. */
    static volatile Path dir = Path.of("benchmarks/node");

    private final Process process;
    private final Writer stdin;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private BullMq(Process process) {
        this.process = process;
        this.stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    if (l.startsWith("{")) {
                        lines.add(l);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            lines.add("{\"error\":\"node exited\"}");
        });
        reader.setDaemon(true);
        reader.start();
    }

    /** Why BullMQ cannot run here (one line), or null when it can. */
    static String unavailable() {
        if (!Files.isRegularFile(dir.resolve("bullmq-bench.mjs"))) {
            return "BullMQ not measured: " + dir.resolve("bullmq-bench.mjs") + " missing";
        }
        if (!Files.isDirectory(dir.resolve("node_modules/bullmq"))) {
            return "BullMQ not measured: npm packages not installed (./bench installs " + PACKAGES + " with npm)";
        }
        try {
            Process p = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "BullMQ not measured: node does not run";
            }
        } catch (IOException e) {
            return "BullMQ not measured: node not on PATH";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return null;
    }

    /** The installed bullmq version, for the report. */
    static String version() {
        try {
            JsonNode pkg = Results.JSON.readTree(
                    dir.resolve("node_modules/bullmq/package.json").toFile());
            return pkg.path("version").asText("unknown");
        } catch (IOException e) {
            return "not installed";
        }
    }

    static BullMq start(Redis redis, String queue) throws IOException {
        Process p = new ProcessBuilder("node", "bullmq-bench.mjs", redis.host(), String.valueOf(redis.port()), queue)
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        return new BullMq(p);
    }

    /** Sends one request and waits for its answer; throws when the answer is an error. */
    JsonNode call(ObjectNode request, Duration timeout) throws IOException, InterruptedException {
        stdin.write(Results.JSON
                        .writer()
                        .without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(request)
                + "\n");
        stdin.flush();
        String l = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (l == null) {
            throw new IllegalStateException("bullmq: no answer to " + request + " within " + timeout);
        }
        JsonNode answer = Results.JSON.readTree(l);
        if (answer.has("error")) {
            throw new IllegalStateException("bullmq: " + answer.get("error").asText());
        }
        return answer;
    }

    /** The next line the process printed on its own (e.g. {@code {"got": seq}}), or null after the timeout. */
    JsonNode next(Duration timeout) throws IOException, InterruptedException {
        String l = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return l == null ? null : Results.JSON.readTree(l);
    }

    /** SIGKILL: the process dies at once, its jobs stay in flight. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    static ObjectNode op(String name) {
        return Results.JSON.createObjectNode().put("op", name);
    }

    @Override
    public void close() {
        try {
            call(op("close"), Duration.ofSeconds(10));
        } catch (IOException | RuntimeException e) {
            // ending anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
