package io.github.deferlock.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Set;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The {@code --redis} URL: {@code redis://[user:password@]host:port[/db]}, or {@code rediss://} for TLS
 * (certificates checked against the JVM's trust store: pass {@code -Djavax.net.ssl.trustStore=…} in {@code
 * JAVA_OPTS}). With {@code --cluster} the host is one seed of a Redis Cluster.
 */
final class RedisUrl {
    private RedisUrl() {}

    /**
     * Opens a client for {@code url}.
     *
     * @throws IllegalArgumentException when the URL is not a redis:// or rediss:// URL with a host and port
     */
    static UnifiedJedis open(String url, boolean cluster, int timeoutMillis) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--redis: not a URL: " + Text.safe(url));
        }
        if (!JedisURIHelper.isValid(uri)
                || !(JedisURIHelper.isRedisScheme(uri) || JedisURIHelper.isRedisSSLScheme(uri))) {
            throw new IllegalArgumentException(
                    "--redis: expected redis://[user:password@]host:port[/db] or rediss://…, not " + Text.safe(url));
        }
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is @admin on Redis 6.2
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri));
        if (JedisURIHelper.isRedisSSLScheme(uri)) { // chain and host name checked against the JVM's trust store
            config.sslOptions(
                    SslOptions.builder().sslVerifyMode(SslVerifyMode.FULL).build());
        }
        HostAndPort hp = JedisURIHelper.getHostAndPort(uri);
        if (cluster) {
            return RedisClusterClient.builder()
                    .nodes(Set.of(hp))
                    .clientConfig(config.build())
                    .build();
        }
        if (JedisURIHelper.hasDbIndex(uri)) {
            config.database(JedisURIHelper.getDBIndex(uri));
        }
        return RedisClient.builder()
                .hostAndPort(hp)
                .clientConfig(config.build())
                .build();
    }
}
