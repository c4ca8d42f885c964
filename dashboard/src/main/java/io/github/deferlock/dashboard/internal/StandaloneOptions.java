package io.github.deferlock.dashboard.internal;

import io.github.deferlock.dashboard.ActionAuth;
import io.github.deferlock.dashboard.DashboardServlet;
import io.github.deferlock.inspect.RedisUrl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The standalone dashboard's command line. Secrets come from the environment, never from arguments (which
 * other users of the machine can read). Immutable.
 *
 * @param redis the Redis URL, with the password of {@code --redis-password-file} or {@code
 *     $DEFERLOCK_REDIS_PASSWORD} when given
 * @param host the address to listen on
 * @param port the port (0: a free one)
 * @param actions the action credentials, or null for read-only
 * @param refresh the refresh interval
 * @param lockScanBudget the locks panel's {@code SCAN} calls per refresh interval
 * @param help whether {@code --help} was given (nothing else is then checked)
 */
public record StandaloneOptions(
        RedisUrl redis, String host, int port, ActionAuth actions, Duration refresh, int lockScanBudget, boolean help) {

    /** The environment variable holding the Redis password (the CLI reads the same). */
    public static final String REDIS_PASSWORD_ENV = "DEFERLOCK_REDIS_PASSWORD";
    /** The environment variable holding the token of {@code --actions token}. */
    public static final String TOKEN_ENV = "DEFERLOCK_DASHBOARD_TOKEN";
    /** The environment variable holding the user of {@code --actions basic}. */
    public static final String USER_ENV = "DEFERLOCK_DASHBOARD_USER";
    /** The environment variable holding the password of {@code --actions basic}. */
    public static final String PASSWORD_ENV = "DEFERLOCK_DASHBOARD_PASSWORD";

    /** The text of {@code --help}. */
    public static final String USAGE = """
            Usage: java -jar deferlock-dashboard-<version>-all.jar --redis URL [options]

              --redis URL          redis://[user:password@]host:port[/db], or rediss:// for TLS (required);
                                   leave the password out of it: anyone on the machine can read arguments
              --redis-password-file FILE
                                   the Redis password, read from FILE (one trailing line break ignored);
                                   else $DEFERLOCK_REDIS_PASSWORD when set, else the URL's
              --port N             HTTP port (default 8080; 0 picks a free one)
              --host ADDRESS       address to listen on (default 127.0.0.1; 0.0.0.0 for every interface:
                                   reads are not authenticated, so put a proxy with a login in front)
              --actions token      enable requeue, purge and cancel for callers with the token in
                                   $DEFERLOCK_DASHBOARD_TOKEN (at least 16 characters)
              --actions basic      the same for the user and password in $DEFERLOCK_DASHBOARD_USER and
                                   $DEFERLOCK_DASHBOARD_PASSWORD (at least 8 characters)
              --refresh SECONDS    how often the page refreshes and the charts sample (default 2)
              --lock-scan-budget N SCAN calls (COUNT 1000) the locks panel makes per refresh, in all
                                   (default 25, at most 1000); readers never add to it
              --help               this text

            Without --actions the dashboard is read-only. Every action is logged with who and what.
            Exit status: 0 after a clean stop, 2 for bad options.
            """;

    /**
     * Parses the command line.
     *
     * @param env the environment (for the secrets)
     * @throws IllegalArgumentException with a one-line message for bad or missing options
     */
    public static StandaloneOptions parse(String[] args, Map<String, String> env) {
        RedisUrl redis = null;
        Path passwordFile = null;
        String host = "127.0.0.1";
        int port = 8080;
        String actions = null;
        Duration refresh = Duration.ofSeconds(2);
        int lockScanBudget = DashboardServlet.Builder.DEFAULT_LOCK_SCAN_BUDGET;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--help") || option.equals("-h")) {
                return new StandaloneOptions(null, host, port, null, refresh, lockScanBudget, true);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        option.startsWith("--") ? option + " needs a value" : "unknown option " + option);
            }
            String value = args[++i];
            switch (option) {
                case "--redis" -> redis = RedisUrl.parse("--redis", value);
                case "--redis-password-file" -> passwordFile = Path.of(value);
                case "--port" -> port = integer(option, value, 0, 65535);
                case "--host" -> host = value;
                case "--actions" -> actions = value;
                case "--lock-scan-budget" -> lockScanBudget = integer(option, value, 1, 1000);
                case "--refresh" -> refresh = Duration.ofMillis(Math.round(1000 * decimal(option, value, 0.2, 60)));
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if (redis == null) {
            throw new IllegalArgumentException("--redis is required, e.g. --redis redis://127.0.0.1:6379");
        }
        String password = passwordFile != null
                ? RedisUrl.readPasswordFile("--redis-password-file", passwordFile)
                : env.get(REDIS_PASSWORD_ENV);
        if (password != null) {
            redis = redis.withPassword(password);
        }
        return new StandaloneOptions(redis, host, port, auth(actions, env), refresh, lockScanBudget, false);
    }

    private static ActionAuth auth(String actions, Map<String, String> env) {
        if (actions == null) {
            return null;
        }
        switch (actions) {
            case "token" -> {
                String token = env.get(TOKEN_ENV);
                if (token == null || token.length() < 16) {
                    throw new IllegalArgumentException(
                            "--actions token needs $" + TOKEN_ENV + " set to a token of at least 16 characters");
                }
                return ActionAuth.token(token);
            }
            case "basic" -> {
                String user = env.get(USER_ENV);
                String password = env.get(PASSWORD_ENV);
                if (user == null || user.isEmpty() || user.contains(":") || password == null || password.length() < 8) {
                    throw new IllegalArgumentException("--actions basic needs $" + USER_ENV + " (without ':') and $"
                            + PASSWORD_ENV + " (at least 8 characters)");
                }
                return ActionAuth.basic(user, password);
            }
            default -> throw new IllegalArgumentException("--actions must be token or basic, not " + actions);
        }
    }

    private static int integer(String option, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " must be within [" + min + ", " + max + "], not " + value);
    }

    private static double decimal(String option, String value, double min, double max) {
        try {
            double x = Double.parseDouble(value);
            if (x >= min && x <= max) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " must be within [" + min + ", " + max + "], not " + value);
    }

    /** The options as the start line shows them: no secrets, no Redis password. */
    @Override
    public String toString() {
        return "redis " + redis + ", http://" + host + ":" + port + ", "
                + (actions == null ? "read-only" : "actions with " + actions.scheme()) + ", refresh " + refresh;
    }
}
