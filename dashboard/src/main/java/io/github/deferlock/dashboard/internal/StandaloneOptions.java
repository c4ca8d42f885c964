package io.github.deferlock.dashboard.internal;

import io.github.deferlock.dashboard.ActionAuth;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The standalone dashboard's command line. Secrets come from the environment, never from arguments (which
 * other users of the machine can read). Immutable.
 *
 * @param redis the Redis URI
 * @param host the address to listen on
 * @param port the port (0: a free one)
 * @param actions the action credentials, or null for read-only
 * @param refresh the refresh interval
 * @param help whether {@code --help} was given (nothing else is then checked)
 */
public record StandaloneOptions(URI redis, String host, int port, ActionAuth actions, Duration refresh, boolean help) {

    /** The environment variable holding the token of {@code --actions token}. */
    public static final String TOKEN_ENV = "DEFERLOCK_DASHBOARD_TOKEN";
    /** The environment variable holding the user of {@code --actions basic}. */
    public static final String USER_ENV = "DEFERLOCK_DASHBOARD_USER";
    /** The environment variable holding the password of {@code --actions basic}. */
    public static final String PASSWORD_ENV = "DEFERLOCK_DASHBOARD_PASSWORD";

    /** The text of {@code --help}. */
    public static final String USAGE = """
            Usage: java -jar deferlock-dashboard-<version>-all.jar --redis URI [options]

              --redis URI          redis://[user:password@]host:port[/db], or rediss:// for TLS (required)
              --port N             HTTP port (default 8080; 0 picks a free one)
              --host ADDRESS       address to listen on (default 127.0.0.1; 0.0.0.0 for every interface:
                                   reads are not authenticated, so put a proxy with a login in front)
              --actions token      enable requeue, purge and cancel for callers with the token in
                                   $DEFERLOCK_DASHBOARD_TOKEN (at least 16 characters)
              --actions basic      the same for the user and password in $DEFERLOCK_DASHBOARD_USER and
                                   $DEFERLOCK_DASHBOARD_PASSWORD (at least 8 characters)
              --refresh SECONDS    how often the page refreshes and the charts sample (default 2)
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
        URI redis = null;
        String host = "127.0.0.1";
        int port = 8080;
        String actions = null;
        Duration refresh = Duration.ofSeconds(2);
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--help") || option.equals("-h")) {
                return new StandaloneOptions(null, host, port, null, refresh, true);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        option.startsWith("--") ? option + " needs a value" : "unknown option " + option);
            }
            String value = args[++i];
            switch (option) {
                case "--redis" -> redis = redisUri(value);
                case "--port" -> port = integer(option, value, 0, 65535);
                case "--host" -> host = value;
                case "--actions" -> actions = value;
                case "--refresh" -> refresh = Duration.ofMillis(Math.round(1000 * decimal(option, value, 0.2, 60)));
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if (redis == null) {
            throw new IllegalArgumentException("--redis is required, e.g. --redis redis://127.0.0.1:6379");
        }
        return new StandaloneOptions(redis, host, port, auth(actions, env), refresh, false);
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

    private static URI redisUri(String value) {
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--redis is not a URI: " + value);
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("--redis must be redis://host:port or rediss://host:port, not " + value);
        }
        return uri;
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
        String where = redis == null ? "" : redis.getScheme() + "://" + redis.getHost() + ":" + redis.getPort();
        return "redis " + where + ", http://" + host + ":" + port + ", "
                + (actions == null ? "read-only" : "actions with " + actions.scheme()) + ", refresh " + refresh;
    }
}
