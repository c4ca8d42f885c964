package io.github.deferlock.spring;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Properties;
import redis.clients.jedis.UnifiedJedis;

/**
 * deferlock's one requirement on the Jedis an application resolves: Jedis 8 (its {@code RedisClient},
 * {@code RedisClusterClient} and {@code RedisSentinelClient}). Spring Boot's dependency management chooses an
 * older Jedis (Boot 4.0: 7.0.0, Boot 3.5: 6.0.0), so an application that inherits {@code
 * spring-boot-starter-parent} sets the {@code jedis.version} property, as docs/spring-boot.md's first snippet
 * shows. {@link #check()} runs when the auto-configuration starts, so an older Jedis stops the application at
 * start-up with {@link JedisVersionFailureAnalyzer}'s report, never later at the first lock. Stateless.
 */
final class JedisRequirement {

    /** The Jedis version deferlock is built and tested with. */
    static final String VERSION = "8.0.2";

    /** The property that sets it in an application whose parent is {@code spring-boot-starter-parent}. */
    static final String PROPERTY = "<jedis.version>" + VERSION + "</jedis.version>";

    private static final String POM_PROPERTIES = "/META-INF/maven/redis.clients/jedis/pom.properties";
    private static final String MARKER = "redis.clients.jedis.RedisClient"; // new in Jedis 8

    private JedisRequirement() {}

    /** Whether the Jedis on the classpath is Jedis 8 or newer. */
    static boolean met() {
        try {
            Class.forName(MARKER, false, JedisRequirement.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The version of the Jedis on the classpath as it reports it, or {@code "unknown"}. */
    static String found() {
        try (InputStream in = UnifiedJedis.class.getResourceAsStream(POM_PROPERTIES)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException | RuntimeException | LinkageError e) {
            return "unknown";
        }
    }

    /**
     * @throws JedisVersionException when the Jedis on the classpath is older than Jedis 8
     */
    static void check() {
        if (!met()) {
            throw new JedisVersionException(found());
        }
    }

    /** Whether {@code failure} (or a cause) reads as a Jedis API missing from an older Jedis. */
    static boolean mentionsJedis(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JedisVersionException) {
                return true;
            }
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("redis/clients/jedis") || m.contains("redis.clients.jedis") || m.contains("jedis 8")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The Jedis on the classpath is older than the Jedis 8 deferlock needs. */
    static final class JedisVersionException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        JedisVersionException(String found) {
            super("deferlock needs Jedis 8 (redis.clients:jedis " + VERSION + "), but the classpath has Jedis " + found
                    + ", which lacks " + MARKER + "; with spring-boot-starter-parent set " + PROPERTY
                    + " in the pom's <properties> (docs/spring-boot.md)");
        }
    }
}
