package io.github.deferlock.dashboard;

import io.github.deferlock.dashboard.internal.StandaloneOptions;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * The standalone dashboard: {@code java -jar deferlock-dashboard-<version>-all.jar --redis
 * redis://host:port [--port 8080]} ({@code --help} lists every option). Runs until stopped (Ctrl-C).
 */
public final class StandaloneDashboard {

    private static final String JETTY_LOG_LEVEL = "org.slf4j.simpleLogger.log.org.eclipse.jetty";

    /** Connect and read timeout of the dashboard's Redis client. */
    private static final int REDIS_TIMEOUT_MILLIS = 2000;

    private StandaloneDashboard() {}

    /**
     * Parses the options, connects to Redis and serves the dashboard until the JVM stops; exits 2 on bad
     * options, 1 when it cannot start.
     */
    public static void main(String[] args) throws InterruptedException {
        // the standalone jar logs through slf4j-simple: Jetty's start-up lines are noise there
        if (System.getProperty(JETTY_LOG_LEVEL) == null) {
            System.setProperty(JETTY_LOG_LEVEL, "warn");
        }
        int status = run(args, System.getenv(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
            throws InterruptedException {
        StandaloneOptions options;
        try {
            options = StandaloneOptions.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("deferlock-dashboard: " + e.getMessage());
            err.println("try --help");
            return 2;
        }
        if (options.help()) {
            out.print(StandaloneOptions.USAGE);
            return 0;
        }
        UnifiedJedis redis = options.redis().open(false, REDIS_TIMEOUT_MILLIS);
        DashboardServlet.Builder builder = DashboardServlet.builder(redis)
                .refreshInterval(options.refresh())
                .lockScanBudget(options.lockScanBudget());
        if (options.actions() != null) {
            builder.actions(options.actions());
        }
        DashboardServer server;
        try {
            server = DashboardServer.start(builder.build(), new InetSocketAddress(options.host(), options.port()));
        } catch (RuntimeException e) {
            redis.close();
            err.println("deferlock-dashboard: " + e.getMessage());
            return 1;
        }
        out.println("deferlock dashboard: " + options + " -> " + server.uri());
        Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "deferlock-dashboard-close"));
        server.join();
        return 0;
    }
}
