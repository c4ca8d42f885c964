package io.github.deferlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * A real {@code redis-server} for tests: its own free loopback port, its own temp data dir, and the fault
 * levers that reliability tests need ({@link #kill()}, {@link #pause()}/{@link #resume()}, {@link
 * #restart()}, {@link #config(String, String)}).
 *
 * <pre>{@code
 * try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start();
 *      RedisClient redis = server.newClient()) {
 *     redis.set("k", "v");
 *     server.kill();
 *     server.restart();          // same port, same data dir: the AOF brings "k" back
 * }
 * }</pre>
 *
 * <p>The binary comes from {@link RedisBinary#resolve()}. When the system property {@code
 * deferlock.redis.image} names an image (e.g. {@code redis:7.4} or {@code valkey/valkey:8}) and Docker is
 * available, the server runs in a container through Testcontainers instead; without Docker that property
 * fails the start with a clear message. Every server is stopped and its dir deleted on {@link #close()},
 * and by a shutdown hook if a test forgot.
 *
 * <p>Instances are threadsafe; lifecycle calls are serialised.
 */
public final class RedisServer implements AutoCloseable {

    /** The system property that asks for a Docker image instead of a local binary. */
    public static final String IMAGE_PROPERTY = "deferlock.redis.image";

    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> List.copyOf(LIVE).forEach(RedisServer::close), "deferlock-redis-cleanup"));
    }

    private final Map<String, String> settings;
    private final Tls tls;
    private final Duration startTimeout;
    private final Path dir;
    private final Backend backend;
    private int port;
    private int tlsPort;
    private volatile String version = "unknown";
    private boolean paused;
    private boolean closed;

    private RedisServer(Builder b) {
        this.settings = new LinkedHashMap<>(b.settings);
        this.tls = b.tls;
        this.startTimeout = b.startTimeout;
        try {
            this.dir = Files.createTempDirectory("deferlock-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data dir for redis-server", e);
        }
        String image = b.image != null ? b.image : System.getProperty(IMAGE_PROPERTY);
        this.backend = image == null || image.isBlank()
                ? new ProcessBackend(RedisBinary.resolve(), dir)
                : new ContainerBackend(image.trim(), dir);
        if (tls != null && !(backend instanceof ProcessBackend)) {
            throw new IllegalStateException("tls needs a local redis-server binary, not the image " + image);
        }
    }

    /** Starts a server with default settings: no persistence, loopback only. */
    public static RedisServer start() {
        return builder().start();
    }

    /** Returns a builder; builders are not threadsafe. */
    public static Builder builder() {
        return new Builder();
    }

    private synchronized RedisServer launchFirst() {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            port = freePort();
            tlsPort = tls == null ? 0 : freePort();
            try {
                launch();
                LIVE.add(this);
                return this;
            } catch (RuntimeException e) {
                last = e;
                backend.destroy();
                if (!String.valueOf(e.getMessage()).contains("Address already in use")) {
                    break;
                }
            }
        }
        deleteDir();
        throw last;
    }

    private void launch() {
        backend.start(port, configText());
        awaitPing();
    }

    private String configText() {
        StringBuilder sb = new StringBuilder();
        sb.append("port ").append(port).append('\n');
        sb.append("bind ").append(backend.bindAddress()).append('\n');
        sb.append("protected-mode no\n");
        sb.append("daemonize no\n");
        sb.append("dir ").append(backend.dataDirForConfig()).append('\n');
        sb.append("logfile redis.log\n");
        sb.append("dbfilename dump.rdb\n");
        sb.append("save \"\"\n");
        if (tls != null) {
            sb.append("tls-port ").append(tlsPort).append('\n');
            sb.append("tls-cert-file ").append(tls.certFile().toAbsolutePath()).append('\n');
            sb.append("tls-key-file ").append(tls.keyFile().toAbsolutePath()).append('\n');
            sb.append("tls-ca-cert-file ")
                    .append(tls.caCertFile().toAbsolutePath())
                    .append('\n');
            sb.append("tls-auth-clients no\n");
        }
        settings.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
        return sb.toString();
    }

    private void awaitPing() {
        long deadline = System.nanoTime() + startTimeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!backend.isAlive()) {
                throw new IllegalStateException(
                        "redis-server exited while starting on port " + port + ": " + backend.logTail());
            }
            try (Jedis j = new Jedis(
                    new HostAndPort(host(), port),
                    DefaultJedisClientConfig.builder()
                            .autoNegotiateProtocol(false)
                            .connectionTimeoutMillis(500)
                            .socketTimeoutMillis(1000)
                            .build())) {
                if ("PONG".equals(j.ping())) {
                    version = infoField(j.info("server"), "redis_version");
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within " + startTimeout
                + " (last error: " + last + "): " + backend.logTail());
    }

    /** The loopback address the server listens on. */
    public String host() {
        return "127.0.0.1";
    }

    /** The server's port, the same across {@link #restart()}. */
    public synchronized int port() {
        return port;
    }

    /**
     * The TLS port, the same across {@link #restart()}; the plain {@link #port()} stays open beside it for
     * admin use.
     *
     * @throws IllegalStateException when the server was built without {@link Builder#tls}
     */
    public synchronized int tlsPort() {
        if (tls == null) {
            throw new IllegalStateException("redis-server on port " + port + " was built without tls");
        }
        return tlsPort;
    }

    /** The server's address for Jedis. */
    public HostAndPort hostAndPort() {
        return new HostAndPort(host(), port());
    }

    /** The server's URI, e.g. {@code redis://127.0.0.1:40123}. */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** The server's own data dir (config, log, AOF and RDB files). */
    public Path dataDir() {
        return dir;
    }

    /**
     * The Redis version the running server reports ({@code redis_version}), e.g. {@code 7.0.15}: the one to
     * gate features on. Valkey reports the Redis version it is compatible with here (7.2.4 for Valkey 8).
     */
    public String version() {
        return version;
    }

    /** Returns true when the version is at least {@code major.minor}. */
    public boolean versionAtLeast(int major, int minor) {
        String[] parts = version().split("\\.");
        int maj = Integer.parseInt(parts[0]);
        int min = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return maj > major || (maj == major && min >= minor);
    }

    /** A new pooled client against this server; the caller closes it. */
    public RedisClient newClient() {
        return RedisClient.builder().hostAndPort(hostAndPort()).build();
    }

    /** A new single-connection client (handy for {@code MONITOR} or {@code CLIENT} commands); caller closes. */
    public Jedis newConnection() {
        return new Jedis(
                hostAndPort(),
                DefaultJedisClientConfig.builder().autoNegotiateProtocol(false).build());
    }

    /**
     * For each client connection that holds a subscription now: how many channels, patterns and shard
     * channels it holds ({@code sub=} + {@code psub=} + {@code ssub=} of {@code CLIENT LIST}), in the server's
     * order. Its size is the number of pub/sub connections; asked on a connection of its own, which holds none.
     */
    public List<Integer> subscriptionsPerConnection() {
        try (Jedis j = newConnection()) {
            List<Integer> out = new ArrayList<>();
            for (String line : j.clientList().split("\n")) {
                int n = 0;
                for (String field : line.trim().split(" ")) {
                    if (field.startsWith("sub=") || field.startsWith("psub=") || field.startsWith("ssub=")) {
                        n += Integer.parseInt(field.substring(field.indexOf('=') + 1));
                    }
                }
                if (n > 0) {
                    out.add(n);
                }
            }
            return out;
        }
    }

    /** Runs {@code CONFIG SET name value} on the live server. */
    public void config(String name, String value) {
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        try (Jedis j = newConnection()) {
            j.configSet(name, value);
        }
    }

    /** Deletes every key and every cached script. */
    public void flushAll() {
        try (Jedis j = newConnection()) {
            j.flushAll();
            j.scriptFlush();
        }
    }

    /** True while the server process is alive (paused counts as alive). */
    public synchronized boolean isRunning() {
        return backend.isAlive();
    }

    /** True while the server is stopped by {@link #pause()}. */
    public synchronized boolean isPaused() {
        return paused;
    }

    /** The server's process id (for a container: the container's main process seen from the host). */
    public synchronized long pid() {
        return backend.pid();
    }

    /** Kills the server at once (SIGKILL): nothing is flushed that was not flushed already. */
    public synchronized void kill() {
        backend.kill();
        paused = false;
    }

    /** Freezes the server (SIGSTOP): connections stay open and clients block until {@link #resume()}. */
    public synchronized void pause() {
        if (!paused) {
            backend.pause();
            paused = true;
        }
    }

    /** Thaws a server frozen by {@link #pause()} (SIGCONT). */
    public synchronized void resume() {
        if (paused) {
            backend.resume();
            paused = false;
        }
    }

    /**
     * Starts the server again on the same port with the same data dir, stopping it first (SIGTERM, so it
     * exits as on a normal shutdown) if it still runs. After {@link #kill()} this is a crash-restart: what
     * survives is what the AOF/RDB had on disk.
     */
    public synchronized void restart() {
        ensureOpen();
        if (paused) {
            resume();
        }
        if (backend.isAlive()) {
            backend.stop();
        }
        launch();
    }

    /** Stops the server (SIGTERM, then SIGKILL after 5 s) and deletes its data dir. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LIVE.remove(this);
        if (paused) {
            try {
                backend.resume();
            } catch (RuntimeException ignored) {
                // the process may already be gone
            }
        }
        backend.destroy();
        deleteDir();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("redis-server on port " + port + " is closed");
        }
    }

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp dir
        }
    }

    /** The last lines of the server's log, for error messages. */
    public String logTail() {
        return backend.logTail();
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", " + dir + "]";
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "unknown";
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file.getFileName() + ")";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /**
     * Builds a {@link RedisServer}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the old value. Not threadsafe.
     */
    public static final class Builder {
        private final Map<String, String> settings = new LinkedHashMap<>();
        private Duration startTimeout = Duration.ofSeconds(30);
        private String image;
        private Tls tls;

        private Builder() {}

        /**
         * Also listens for TLS on {@link RedisServer#tlsPort()} with this PEM certificate, key and CA (clients
         * are not asked for certificates). Needs a redis-server built with TLS; the start fails with the
         * server's log otherwise.
         */
        public Builder tls(Path certFile, Path keyFile, Path caCertFile) {
            Objects.requireNonNull(certFile, "certFile cannot be null");
            Objects.requireNonNull(keyFile, "keyFile cannot be null");
            Objects.requireNonNull(caCertFile, "caCertFile cannot be null");
            if (tls != null) {
                throw new IllegalStateException("tls was already set to " + tls);
            }
            this.tls = new Tls(certFile, keyFile, caCertFile);
            return this;
        }

        /** Turns the append-only file on or off (default off). */
        public Builder appendOnly(boolean on) {
            return setting("appendonly", on ? "yes" : "no");
        }

        /** Sets {@code appendfsync}: {@code always}, {@code everysec} or {@code no}. */
        public Builder appendFsync(String policy) {
            Objects.requireNonNull(policy, "policy cannot be null");
            if (!List.of("always", "everysec", "no").contains(policy)) {
                throw new IllegalArgumentException("appendfsync must be always, everysec or no, not '" + policy + "'");
            }
            return setting("appendfsync", policy);
        }

        /** Adds one line {@code name value} to the server's config file, e.g. {@code ("maxmemory", "64mb")}. */
        public Builder setting(String name, String value) {
            Objects.requireNonNull(name, "name cannot be null");
            Objects.requireNonNull(value, "value cannot be null");
            String old = settings.putIfAbsent(name, value);
            if (old != null) {
                throw new IllegalStateException(name + " was already set to '" + old + "'");
            }
            return this;
        }

        /** How long to wait for the first PING (default 30 s). */
        public Builder startTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout cannot be null");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive, not " + timeout);
            }
            this.startTimeout = timeout;
            return this;
        }

        /** Runs the server from this Docker image instead of a local binary (needs Docker). */
        public Builder image(String dockerImage) {
            Objects.requireNonNull(dockerImage, "dockerImage cannot be null");
            if (image != null) {
                throw new IllegalStateException("image was already set to '" + image + "'");
            }
            this.image = dockerImage;
            return this;
        }

        /**
         * Starts the server and waits until it answers PING.
         *
         * @throws IllegalStateException when it exits or does not answer within the start timeout (the
         *     message holds the tail of its log), or when the classpath's Jedis is older than Jedis 8 (the
         *     message names the {@code jedis.version} property to set)
         */
        public RedisServer start() {
            JedisRequirement.check();
            return new RedisServer(this).launchFirst();
        }
    }

    private record Tls(Path certFile, Path keyFile, Path caCertFile) {}

    /** What runs the server: a local process or a container. */
    interface Backend {
        void start(int port, String config);

        String dataDirForConfig();

        String bindAddress();

        boolean isAlive();

        long pid();

        void kill();

        void pause();

        void resume();

        void stop();

        void destroy();

        String logTail();
    }

    /** Builds the argument list of a local redis-server. */
    static List<String> command(Path binary, Path configFile) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.add(configFile.toString());
        return cmd;
    }
}
