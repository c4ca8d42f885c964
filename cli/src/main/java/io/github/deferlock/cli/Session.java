package io.github.deferlock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.inspect.AuditRecord;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.inspect.OpsText;
import io.github.deferlock.inspect.RedisUrl;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
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

    // ---------------------------------------------------------------- audit

    /** What the CLI writes as the source of its audit records. */
    static final String AUDIT_SOURCE = "cli";
    /** The longest {@code --actor}, in characters. */
    static final int MAX_ACTOR = 100;

    /**
     * How a state-changing command ended: its exit code and the outcome its audit record keeps ({@code done},
     * {@code done: <detail>}, {@code refused: <reason>}).
     */
    record Outcome(int code, String text) {}

    /**
     * Runs a command that changes state in Redis and audits it (docs/ops.md, "Audit"): after {@code body}, one
     * record goes to stderr ({@code audit: action=… actor=… from=… queue=… ids=[…] outcome=…}) and to the audit
     * stream ({@link Inspector#audit}). A body that throws is audited as {@code refused: <message>} (bad
     * arguments found against Redis, exit 2) or {@code failed: <message>}, then the exception goes on. When the
     * stream cannot be written, the action's result stands, a warning goes to stderr, and a run that would
     * exit 0 exits {@link ExitCode#AUDIT} instead. Arguments refused before Redis is opened change nothing and
     * are not audited.
     */
    int audited(String action, String queue, List<String> ids, Supplier<Outcome> body) {
        String actor = actor(); // a bad --actor is refused before anything changes
        inspector(); // a bad URL too
        Outcome outcome;
        try {
            outcome = body.get();
        } catch (UsageException | IllegalArgumentException e) {
            audit(actor, action, queue, ids, "refused: " + e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            audit(actor, action, queue, ids, "failed: " + e.getMessage());
            throw e;
        }
        boolean written = audit(actor, action, queue, ids, outcome.text());
        return written || outcome.code() != ExitCode.OK ? outcome.code() : ExitCode.AUDIT;
    }

    /** Writes one audit record to stderr and to the stream; false (after a warning) when the stream refused it. */
    private boolean audit(String actor, String action, String queue, List<String> ids, String outcome) {
        String from = from();
        AuditRecord line =
                new AuditRecord("", Instant.EPOCH, AUDIT_SOURCE, actor, from, action, queue, ids, ids.size(), outcome);
        err.println("audit: " + line.logLine());
        try {
            inspector().audit(AUDIT_SOURCE, actor, from, action, queue, ids, outcome);
            return true;
        } catch (RuntimeException e) {
            err.println("deferlock: warning: the audit record above was not written to Redis ("
                    + Inspector.AUDIT_KEY + "): " + OpsText.safe(String.valueOf(e.getMessage()))
                    + "; the command's own result stands");
            return false;
        }
    }

    /** {@code --actor}, else {@code $DEFERLOCK_ACTOR}, else the OS user. */
    String actor() {
        String source = options.actor != null ? "--actor" : "$" + Main.ACTOR_ENV;
        String actor = options.actor != null ? options.actor : env.apply(Main.ACTOR_ENV);
        if (actor == null) {
            return osUser();
        }
        if (actor.isBlank() || actor.length() > MAX_ACTOR) {
            throw new UsageException(source + " must be 1 to " + MAX_ACTOR + " characters and not blank, not '"
                    + Text.cut(actor, 40) + "'");
        }
        return actor;
    }

    /** {@code <OS user>@<host>}: where a command ran, also when {@code --actor} names someone. */
    String from() {
        return osUser() + "@" + host();
    }

    private static String osUser() {
        String user = System.getProperty("user.name");
        return user == null || user.isBlank() ? "unknown" : user;
    }

    /** {@code $HOSTNAME}, else {@code $COMPUTERNAME} (Windows), else the local host's name. */
    private String host() {
        for (String name : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            String h = env.apply(name);
            if (h != null && !h.isBlank()) {
                return h;
            }
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            return "unknown";
        }
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
