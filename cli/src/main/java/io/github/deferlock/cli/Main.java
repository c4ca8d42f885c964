package io.github.deferlock.cli;

import io.github.deferlock.inspect.InspectException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code deferlock}: the command-line tool. Run {@code deferlock --help}, or {@code deferlock <command>
 * --help}; exit codes are in {@link ExitCode}.
 */
@Command(
        name = "deferlock",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Looks into deferlock's queues, dead letters, jobs and locks in Redis, and requeues, purges or"
                + " cancels by id.",
        subcommands = {
            QueuesCommand.class,
            QueueCommand.class,
            DeadCommand.class,
            JobCommand.class,
            LocksCommand.class,
            LockCommand.class,
            ConflictsCommand.class,
            SchedulesCommand.class,
            AuditCommand.class
        },
        footerHeading = "%nExit codes:%n",
        footer = {
            "  0  done",
            "  1  not found: a queue, job, lock or dead letter named does not exist",
            "  2  bad arguments; nothing was changed",
            "  3  Redis unreachable or refused a command (auth, NOPERM, timeout)",
            "  4  a defect of the tool",
            "  5  done, but the audit record could not be written to Redis (stderr says why)"
        })
public final class Main implements Callable<Integer> {
    /** The environment variable that gives {@code --redis} its default. */
    static final String REDIS_ENV = "DEFERLOCK_REDIS";
    /** The environment variable holding the Redis password, instead of the URL's. */
    static final String REDIS_PASSWORD_ENV = "DEFERLOCK_REDIS_PASSWORD";
    /** The environment variable that gives {@code --actor} its default. */
    static final String ACTOR_ENV = "DEFERLOCK_ACTOR";

    @Option(
            names = "--redis",
            scope = ScopeType.INHERIT,
            paramLabel = "URL",
            description = "redis://[user:password@]host:port[/db], or rediss:// for TLS (default: $" + REDIS_ENV
                    + ", else redis://localhost:6379)")
    String redis;

    @Option(
            names = "--redis-password-file",
            scope = ScopeType.INHERIT,
            paramLabel = "FILE",
            description = "read the Redis password from FILE (one trailing line break ignored) instead of the URL;"
                    + " else $" + REDIS_PASSWORD_ENV + " when set. Keeps it out of the process list.")
    Path redisPasswordFile;

    @Option(
            names = "--cluster",
            scope = ScopeType.INHERIT,
            description = "the --redis host is a seed of a Redis Cluster")
    boolean cluster;

    @Option(
            names = "--actor",
            scope = ScopeType.INHERIT,
            paramLabel = "NAME",
            description = "who to name in the audit record of a command that changes something (default: $" + ACTOR_ENV
                    + ", else the OS user; the record keeps <OS user>@<host> too)")
    String actor;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "print JSON (for scripts)")
    boolean json;

    @Option(
            names = "--timeout",
            scope = ScopeType.INHERIT,
            paramLabel = "MS",
            defaultValue = "5000",
            description = "connect and read timeout in milliseconds (default: ${DEFAULT-VALUE})")
    int timeoutMillis;

    @Option(
            names = "--lock-prefix",
            scope = ScopeType.INHERIT,
            paramLabel = "PREFIX",
            description = "also list this lock prefix's registry in `queues` (lock: is always read); repeatable")
    List<String> lockPrefixes = new ArrayList<>();

    Session session;

    @Override
    public Integer call() {
        session.out().print(new CommandLine(this).getUsageMessage());
        return ExitCode.USAGE;
    }

    /** Runs the tool and exits with its exit code. */
    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, err, System::getenv));
    }

    /**
     * Runs the tool.
     *
     * @param env the environment ({@value #REDIS_ENV}, {@value #REDIS_PASSWORD_ENV}, {@value #ACTOR_ENV}, {@code
     *     HOSTNAME})
     * @return the exit code
     */
    static int run(String[] args, PrintWriter out, PrintWriter err, UnaryOperator<String> env) {
        Main main = new Main();
        try (Session session = new Session(main, out, err, env)) {
            main.session = session;
            CommandLine cli = new CommandLine(main)
                    .setOut(out)
                    .setErr(err)
                    .setCaseInsensitiveEnumValuesAllowed(true)
                    .setParameterExceptionHandler((e, args1) -> {
                        err.println("deferlock: " + Text.safe(e.getMessage()));
                        err.println(
                                "Run '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
                        return ExitCode.USAGE;
                    })
                    .setExecutionExceptionHandler((e, cmd, parsed) -> failed(e, err));
            int code = cli.execute(args);
            out.flush();
            err.flush();
            return code;
        }
    }

    private static int failed(Exception e, PrintWriter err) {
        if (e instanceof UsageException || e instanceof IllegalArgumentException) {
            err.println("deferlock: " + e.getMessage());
            return ExitCode.USAGE;
        }
        if (e instanceof InspectException || e instanceof JedisException || e.getCause() instanceof JedisException) {
            err.println("deferlock: " + e.getMessage());
            return ExitCode.REDIS;
        }
        err.println("deferlock: unexpected failure (a defect of the tool, please report it):");
        e.printStackTrace(err);
        return ExitCode.INTERNAL;
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"deferlock " + (v == null ? "(development build)" : v)};
        }
    }
}
