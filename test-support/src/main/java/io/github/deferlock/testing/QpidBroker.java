package io.github.deferlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.model.SystemConfig;

/**
 * A real AMQP 0-9-1 broker for tests: Apache Qpid Broker-J started in this JVM on a free loopback port, user
 * guest/guest, one virtual host whose messages live in a Derby store under a temp dir, so {@link #restart()}
 * keeps durable queues and persistent messages like a broker restart does.
 *
 * <p>Needs Qpid Broker-J's {@code qpid-broker-core}, {@code qpid-broker-plugins-amqp-0-8-protocol}, {@code
 * qpid-broker-plugins-memory-store} and {@code qpid-broker-plugins-derby-store} on the classpath (optional
 * dependencies of test-support: declare them where you use this class). Not threadsafe.
 */
public final class QpidBroker implements AutoCloseable {
    private final Path dir;
    private final int port;
    private SystemLauncher launcher;

    private QpidBroker(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /**
     * Starts a broker on a free loopback port with a fresh store under a temp dir.
     *
     * @throws IllegalStateException when it cannot start
     */
    public static QpidBroker start() {
        try {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            QpidBroker b = new QpidBroker(Files.createTempDirectory("qpid"), port);
            b.launch();
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The AMQP port on 127.0.0.1. */
    public int port() {
        return port;
    }

    private void launch() {
        String vhost = "{\\\"type\\\":\\\"DERBY\\\",\\\"storePath\\\":\\\"" + dir.resolve("vhost") + "\\\"}";
        String json = "{\"name\":\"broker\",\"modelVersion\":\"9.0\","
                + "\"authenticationproviders\":[{\"name\":\"plain\",\"type\":\"Plain\",\"secureOnlyMechanisms\":[],"
                + "\"users\":[{\"name\":\"guest\",\"password\":\"guest\",\"type\":\"managed\"}]}],"
                + "\"ports\":[{\"name\":\"AMQP\",\"port\":\"" + port + "\",\"bindingAddress\":\"127.0.0.1\","
                + "\"authenticationProvider\":\"plain\",\"protocols\":[\"AMQP_0_9_1\"],"
                + "\"virtualhostaliases\":[{\"name\":\"nameAlias\",\"type\":\"nameAlias\"},"
                + "{\"name\":\"defaultAlias\",\"type\":\"defaultAlias\"}]}],"
                + "\"virtualhostnodes\":[{\"name\":\"default\",\"type\":\"JSON\",\"storePath\":\""
                + dir.resolve("node.json") + "\",\"defaultVirtualHostNode\":\"true\","
                + "\"virtualHostInitialConfiguration\":\"" + vhost + "\"}]}";
        try {
            // Derby writes derby.log into the working directory unless told otherwise
            System.setProperty(
                    "derby.stream.error.file", dir.resolve("derby.log").toString());
            Path cfg = dir.resolve("config.json");
            Files.writeString(cfg, json);
            Map<String, Object> attrs = new HashMap<>();
            attrs.put(SystemConfig.TYPE, "Memory");
            attrs.put(SystemConfig.INITIAL_CONFIGURATION_LOCATION, cfg.toUri().toString());
            attrs.put(SystemConfig.STARTUP_LOGGED_TO_SYSTEM_OUT, false);
            attrs.put("context", Map.of("qpid.work_dir", dir.toString(), "qpid.home_dir", dir.toString()));
            launcher = new SystemLauncher();
            launcher.startup(attrs);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start Qpid Broker-J on port " + port, e);
        }
    }

    /** Stops the broker (its connections drop) and starts it again on the same port with the same store. */
    public void restart() {
        stop();
        launch();
    }

    /** Stops the broker; {@link #restart()} starts it again. */
    public void stop() {
        if (launcher != null) {
            launcher.shutdown();
            launcher = null;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
