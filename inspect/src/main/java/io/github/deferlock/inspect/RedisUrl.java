package io.github.deferlock.inspect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis URL of the ops tools: {@code redis://[user:password@]host:port[/db]}, or {@code rediss://} for TLS
 * (certificates and host name checked against the JVM's trust store). {@code user@} without a password, or no
 * user-info, leaves the password to {@link #withPassword} (from a file or the environment). Every error message shows the URL with
 * its user-info masked ({@link OpsText#maskUrl}), never the password; so does {@link #toString()}. Immutable
 * and threadsafe.
 */
public final class RedisUrl {
    /** The form every message about a bad URL names. */
    public static final String FORM = "redis://[user:password@]host:port[/db] or rediss://…";

    private final boolean tls;
    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int db;

    private RedisUrl(boolean tls, String host, int port, String user, String password, int db) {
        this.tls = tls;
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.db = db;
    }

    /**
     * Parses {@code url}.
     *
     * @param source where the URL came from, for the message (e.g. {@code --redis}, {@code $DEFERLOCK_REDIS})
     * @throws IllegalArgumentException naming {@code source}, the expected form, the masked URL and what is
     *     wrong; the message never holds the password
     * @throws NullPointerException when an argument is null
     */
    public static RedisUrl parse(String source, String url) {
        Objects.requireNonNull(source, "source cannot be null");
        Objects.requireNonNull(url, "url cannot be null");
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) { // its message quotes the input: not shown
            throw bad(source, url, "not a URL (a space, a stray or unescaped character, or a bad %-escape)");
        }
        String scheme = uri.getScheme();
        if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
            throw bad(source, url, scheme == null ? "no scheme" : "the scheme must be redis or rediss");
        }
        if (uri.getHost() == null) {
            throw bad(source, url, "no host, or a port that is not a number");
        }
        if (uri.getPort() < 1 || uri.getPort() > 65535) {
            throw bad(source, url, uri.getPort() == -1 ? "no port" : "the port must be within [1, 65535]");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw bad(source, url, "no ?query or #fragment is read");
        }
        int db = -1;
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            if (!path.matches("/[0-9]{1,9}")) {
                throw bad(source, url, "the database must be /0, /1, … (at most 9 digits)");
            }
            db = Integer.parseInt(path.substring(1));
        }
        String user = null;
        String password = null;
        String userInfo = uri.getUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) { // user@: the password comes from elsewhere (withPassword)
                user = userInfo.isEmpty() ? null : userInfo;
            } else {
                user = colon == 0 ? null : userInfo.substring(0, colon);
                password = userInfo.substring(colon + 1);
            }
        }
        return new RedisUrl("rediss".equals(scheme), uri.getHost(), uri.getPort(), user, password, db);
    }

    private static IllegalArgumentException bad(String source, String url, String what) {
        return new IllegalArgumentException(
                source + ": expected " + FORM + ", not " + OpsText.maskUrl(url) + ": " + what);
    }

    /**
     * This URL with {@code password} instead of the URL's own (from a file or the environment, which other
     * users of the machine cannot read, unlike the command line).
     *
     * @throws NullPointerException when {@code password} is null
     */
    public RedisUrl withPassword(String password) {
        return new RedisUrl(tls, host, port, user, Objects.requireNonNull(password, "password cannot be null"), db);
    }

    /**
     * The password in {@code file}: its text (UTF-8) without one trailing line break, for a
     * {@code --redis-password-file} option. The message of a failure names the option and the file, never
     * what the file holds.
     *
     * @param option the option that named the file, for the message
     * @throws IllegalArgumentException when the file cannot be read or is empty
     */
    public static String readPasswordFile(String option, Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + OpsText.safe(file.toString()) + " ("
                    + e.getClass().getSimpleName() + ")");
        }
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - (text.endsWith("\r\n") ? 2 : 1));
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException(option + ": " + OpsText.safe(file.toString()) + " is empty");
        }
        return text;
    }

    /** The host name or address. */
    public String host() {
        return host;
    }

    /** The port. */
    public int port() {
        return port;
    }

    /** Whether it is {@code rediss://}. */
    public boolean tls() {
        return tls;
    }

    /** Whether a password was given. */
    public boolean hasPassword() {
        return password != null;
    }

    /**
     * Opens a client: a {@link RedisClient} on the URL's database, or with {@code cluster} a {@link
     * RedisClusterClient} seeded by the host. Nothing is sent until the client is used.
     *
     * @param timeoutMillis connect and read timeout
     */
    public UnifiedJedis open(boolean cluster, int timeoutMillis) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is @admin on Redis 6.2
                .user(user)
                .password(password);
        if (tls) { // chain and host name checked against the JVM's trust store
            config.sslOptions(
                    SslOptions.builder().sslVerifyMode(SslVerifyMode.FULL).build());
        }
        boolean v6 = host.startsWith("[") && host.endsWith("]");
        HostAndPort hp = new HostAndPort(v6 ? host.substring(1, host.length() - 1) : host, port);
        if (cluster) {
            return RedisClusterClient.builder()
                    .nodes(Set.of(hp))
                    .clientConfig(config.build())
                    .build();
        }
        if (db >= 0) {
            config.database(db);
        }
        return RedisClient.builder()
                .hostAndPort(hp)
                .clientConfig(config.build())
                .build();
    }

    /** {@code redis[s]://[***@]host:port[/db]}: the password never shows. */
    @Override
    public String toString() {
        String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return (tls ? "rediss://" : "redis://") + (user != null || password != null ? OpsText.MASK + "@" : "")
                + OpsText.safe(h) + ":" + port + (db >= 0 ? "/" + db : "");
    }
}
