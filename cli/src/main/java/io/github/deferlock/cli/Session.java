package io.github.deferlock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.RedisUrl;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.function.UnaryOperator;
import redis.clients.jedis.UnifiedJedis;

/**
 * What one run of the tool shares: the global options, the Redis client (opened when a command first needs
 * it, closed at the end) and the output. Not threadsafe; one per run.
 */
final class Session implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Main options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final UnaryOperator<String> env;
    private UnifiedJedis client;
    private Inspector inspector;

    Session(Main options, PrintWriter out, PrintWriter err, UnaryOperator<String> env) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.env = env;
    }

    PrintWriter out() {
        return out;
    }

    PrintWriter err() {
        return err;
    }

    boolean json() {
        return options.json;
    }

    /** The inspector over the {@code --redis} client. */
    Inspector inspector() {
        if (inspector == null) {
            String source = options.redis != null ? "--redis" : "$" + Main.REDIS_ENV;
            String url = options.redis != null ? options.redis : env.apply(Main.REDIS_ENV);
            if (url == null || url.isBlank()) {
                url = "redis://localhost:6379";
            }
            if (options.timeoutMillis < 1) {
                throw new UsageException("--timeout must be at least 1, not " + options.timeoutMillis);
            }
            RedisUrl target = RedisUrl.parse(source, url);
            String password = options.redisPasswordFile != null
                    ? RedisUrl.readPasswordFile("--redis-password-file", options.redisPasswordFile)
                    : env.apply(Main.REDIS_PASSWORD_ENV);
            if (password != null) {
                target = target.withPassword(password);
            }
            client = target.open(options.cluster, options.timeoutMillis);
            inspector =
                    Inspector.builder(client).lockPrefixes(options.lockPrefixes).build();
        }
        return inspector;
    }

    /** Prints {@code node} as indented JSON. */
    void printJson(JsonNode node) {
        try {
            out.println(JSON.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** A new JSON object. */
    static com.fasterxml.jackson.databind.node.ObjectNode object() {
        return JSON.createObjectNode();
    }

    /**
     * The stats of {@code queue}, or empty after printing "no queue" when it does not exist ({@link
     * Inspector#queueExists}): the caller then returns {@link ExitCode#NOT_FOUND}.
     */
    Optional<QueueStats> existingQueue(String queue) {
        QueueStats stats = inspector().queueStats(queue);
        if (inspector().queueExists(stats)) {
            return Optional.of(stats);
        }
        notFound("no queue '" + Text.safe(queue)
                + "': it never held a job and no worker announced it (`deferlock queues` lists the known ones)");
        return Optional.empty();
    }

    /** Prints a "not found" message on stderr and returns {@link ExitCode#NOT_FOUND}. */
    int notFound(String message) {
        err.println("deferlock: " + message);
        return ExitCode.NOT_FOUND;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
