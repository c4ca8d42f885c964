package io.github.deferlock.spring;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Turns a start-up failure caused by a Jedis older than 8 into a report that names the property to set:
 * Spring Boot's dependency management picks Jedis 7.0.0 (Boot 4.0) or 6.0.0 (Boot 3.5), and deferlock needs
 * Jedis 8. It answers for {@link JedisRequirement}'s own check and, while the classpath's Jedis is older than 8,
 * for any failure that names a Jedis class or method ({@code NoClassDefFoundError}, {@code NoSuchMethodError},
 * test-support's check); ordered ahead of Boot's generic {@code NoSuchMethodError} analyzer. Registered in
 * {@code META-INF/spring.factories}. Stateless.
 */
final class JedisVersionFailureAnalyzer implements FailureAnalyzer, Ordered {

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        return analyze(failure, JedisRequirement.met(), JedisRequirement.found());
    }

    /** The analysis when the classpath's Jedis is {@code found} and is ({@code met}) or is not Jedis 8+. */
    static FailureAnalysis analyze(Throwable failure, boolean met, String found) {
        if (met || !JedisRequirement.mentionsJedis(failure)) {
            return null;
        }
        return new FailureAnalysis(
                "deferlock needs Jedis 8 (redis.clients:jedis " + JedisRequirement.VERSION
                        + "), but the application resolved Jedis " + found
                        + ". Spring Boot's dependency management chooses Jedis 7.0.0 (Boot 4.0) or 6.0.0 (Boot 3.5),"
                        + " which lack RedisClient, RedisClusterClient and RedisSentinelClient.\n\nThe failure: "
                        + rootCause(failure),
                "Set the Jedis version Spring Boot manages to " + JedisRequirement.VERSION + ":\n"
                        + "  - Maven with spring-boot-starter-parent: in the pom's <properties>, "
                        + JedisRequirement.PROPERTY + "\n"
                        + "  - Maven importing spring-boot-dependencies: a redis.clients:jedis "
                        + JedisRequirement.VERSION + " entry in <dependencyManagement> ahead of the import\n"
                        + "  - Gradle with the dependency-management plugin: ext['jedis.version'] = '"
                        + JedisRequirement.VERSION + "'\n"
                        + "See docs/spring-boot.md.",
                failure);
    }

    private static String rootCause(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.toString();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
