package io.github.deferlock.spring;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.springframework.boot.ssl.SslBundles;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Builds the Jedis client from {@code spring.data.redis.*}: a cluster client when cluster nodes are set, a
 * Sentinel client when a sentinel master is set, else a standalone one (from the URL when set).
 */
final class RedisClientFactory {

    private RedisClientFactory() {}

    // ssl(boolean) and sslSocketFactory are deprecated in favour of SslOptions, which reads key stores from files
    // only: a Spring SSL bundle hands over a ready SSLContext, which only the socket factory can carry.
    @SuppressWarnings("deprecation")
    static UnifiedJedis create(RedisConnectionSettings s, SslBundles bundles) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder();
        String host = s.getHost();
        int port = s.getPort();
        String user = s.getUsername();
        String password = s.getPassword();
        int database = s.getDatabase();
        boolean ssl = s.getSsl().isEnabled();
        if (s.getUrl() != null && !s.getUrl().isBlank()) {
            URI uri = URI.create(s.getUrl());
            if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
                throw new IllegalArgumentException(
                        "spring.data.redis.url must start with redis:// or rediss://, not " + uri.getScheme() + "://");
            }
            ssl = ssl || "rediss".equals(uri.getScheme());
            host = uri.getHost();
            port = uri.getPort() > 0 ? uri.getPort() : 6379;
            if (uri.getUserInfo() != null) {
                String info = uri.getUserInfo();
                int colon = info.indexOf(':');
                if (colon < 0) {
                    password = info;
                } else {
                    user = colon == 0 ? null : info.substring(0, colon);
                    password = info.substring(colon + 1);
                }
            }
            if (uri.getPath() != null && uri.getPath().length() > 1) {
                database = Integer.parseInt(uri.getPath().substring(1));
            }
        }
        if (user != null) {
            config.user(user);
        }
        if (password != null) {
            config.password(password);
        }
        config.database(database);
        if (s.getTimeout() != null) {
            config.socketTimeoutMillis((int) s.getTimeout().toMillis());
        }
        if (s.getConnectTimeout() != null) {
            config.connectionTimeoutMillis((int) s.getConnectTimeout().toMillis());
        }
        if (s.getClientName() != null) {
            config.clientName(s.getClientName());
        }
        if (ssl) {
            config.ssl(true);
            String bundle = s.getSsl().getBundle();
            if (bundle != null) {
                if (bundles == null) {
                    throw new IllegalStateException(
                            "spring.data.redis.ssl.bundle is '" + bundle + "' but no SslBundles bean exists");
                }
                SSLContext context = bundles.getBundle(bundle).createSslContext();
                config.sslSocketFactory(context.getSocketFactory());
            }
        }
        RedisConnectionSettings.Cluster cluster = s.getCluster();
        if (cluster != null && !cluster.getNodes().isEmpty()) {
            var b = RedisClusterClient.builder()
                    .nodes(nodes("spring.data.redis.cluster.nodes", cluster.getNodes()))
                    .clientConfig(config.build());
            if (cluster.getMaxRedirects() != null) {
                b.maxAttempts(cluster.getMaxRedirects() + 1);
            }
            return b.build();
        }
        RedisConnectionSettings.Sentinel sentinel = s.getSentinel();
        if (sentinel != null && sentinel.getMaster() != null) {
            DefaultJedisClientConfig.Builder sentinelConfig = DefaultJedisClientConfig.builder();
            if (sentinel.getUsername() != null) {
                sentinelConfig.user(sentinel.getUsername());
            }
            if (sentinel.getPassword() != null) {
                sentinelConfig.password(sentinel.getPassword());
            }
            return RedisSentinelClient.builder()
                    .masterName(sentinel.getMaster())
                    .sentinels(nodes("spring.data.redis.sentinel.nodes", sentinel.getNodes()))
                    .clientConfig(config.build())
                    .sentinelClientConfig(sentinelConfig.build())
                    .build();
        }
        return RedisClient.builder()
                .hostAndPort(host, port)
                .clientConfig(config.build())
                .build();
    }

    private static Set<HostAndPort> nodes(String property, List<String> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException(property + " cannot be empty");
        }
        Set<HostAndPort> out = new LinkedHashSet<>();
        for (String n : nodes) {
            int colon = n.lastIndexOf(':');
            try {
                out.add(new HostAndPort(
                        n.substring(0, colon),
                        Integer.parseInt(n.substring(colon + 1).trim())));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(property + " must list host:port pairs, not '" + n + "'", e);
            }
        }
        return out;
    }
}
