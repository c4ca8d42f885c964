package io.github.deferlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import redis.clients.jedis.UnifiedJedis;

/**
 * test-support's clients are Jedis 8's ({@code RedisClient}, {@code RedisClusterClient}, {@code
 * RedisSentinelClient}), so every server start checks first that the classpath has Jedis 8, and says which
 * property to set when Spring Boot's dependency management chose an older one (Boot 4.0: 7.0.0, Boot 3.5:
 * 6.0.0). Stateless.
 */
final class JedisRequirement {

    /** The Jedis version test-support is built and tested with. */
    static final String VERSION = "8.0.2";

    private JedisRequirement() {}

    /**
     * @throws IllegalStateException naming the Jedis found and the {@code jedis.version} property to set, when
     *     the classpath's Jedis is older than 8
     */
    static void check() {
        try {
            Class.forName("redis.clients.jedis.RedisClient", false, JedisRequirement.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("test-support needs Jedis 8 (redis.clients:jedis " + VERSION
                    + "), but the classpath has Jedis " + found()
                    + ", which lacks redis.clients.jedis.RedisClient; with spring-boot-starter-parent set <jedis.version>"
                    + VERSION + "</jedis.version> in the pom's <properties> (docs/spring-boot.md)");
        }
    }

    /** The version in the Jedis jar's Maven metadata, or {@code "unknown"}. */
    static String found() {
        try (InputStream in =
                UnifiedJedis.class.getResourceAsStream("/META-INF/maven/redis.clients/jedis/pom.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
