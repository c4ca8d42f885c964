package io.github.deferlock.demo;

import io.github.deferlock.testing.RedisServer;
import java.io.PrintStream;
import redis.clients.jedis.RedisClient;

/**
 * The deferlock demo. For now it starts a Redis server (the one on {@code PATH}, or the binary bundled in
 * the embedded-redis jar), connects, and prints the server version; the conflict-strategy workload comes
 * with the integration module.
 */
public final class Demo {

    private Demo() {}

    /** Runs the demo; {@code --help} explains the options. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                out.println("usage: run-demo [--help]");
                out.println("  Starts a local redis-server, connects and prints its version.");
                return 0;
            }
            err.println("unknown option '" + a + "' (try --help)");
            return 2;
        }
        try (RedisServer server = RedisServer.start();
                RedisClient redis = server.newClient()) {
            String info = redis.info("server");
            String version = info.lines()
                    .filter(l -> l.startsWith("redis_version:"))
                    .map(l -> l.substring("redis_version:".length()).trim())
                    .findFirst()
                    .orElse("unknown");
            out.println("deferlock demo: connected to redis-server " + version + " at " + server.uri());
        }
        return 0;
    }
}
