package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Spring Boot 3.5 only (the {@code -Dboot35} build): the health indicator docs/spring-boot.md shows for Boot 3.5,
 * an application's own adapter of the starter's {@link DeferlockHealthCheck}, is the {@code deferlock} component
 * of Boot 3.5's health endpoint and goes DOWN and UP as {@code HealthIT} checks on Boot 4.
 */
@SpringBootTest(classes = Boot35HealthIT.App.class)
@DirtiesContext
final class Boot35HealthIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        /** The adapter of docs/spring-boot.md, Compatibility. */
        @Bean
        AbstractHealthIndicator deferlockHealthIndicator(DeferlockHealthCheck check) {
            return new AbstractHealthIndicator() {
                @Override
                protected void doHealthCheck(Health.Builder builder) {
                    DeferlockHealthCheck.Result result = check.run(); // throws when Redis does not answer: DOWN
                    (result.up() ? builder.up() : builder.down()).withDetails(result.details());
                }
            };
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", SERVER::host);
        registry.add("spring.data.redis.port", SERVER::port);
        registry.add("spring.data.redis.timeout", () -> "2s");
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @Autowired
    HealthEndpoint endpoint;

    private Status status() {
        return endpoint.healthForPath("deferlock").getStatus();
    }

    @Test
    void deferlockComponent_isDownWhileRedisIsDead_andWhenTheEvictionPolicyMayDropKeys() {
        assertThat(status()).isEqualTo(Status.UP);
        SERVER.config("maxmemory-policy", "allkeys-lru");
        try {
            assertThat(status()).isEqualTo(Status.DOWN);
        } finally {
            SERVER.config("maxmemory-policy", "noeviction");
        }
        assertThat(status()).isEqualTo(Status.UP);
        SERVER.kill();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> status().equals(Status.DOWN));
        } finally {
            SERVER.restart();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> status().equals(Status.UP));
    }
}
