package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The health indicator in a real application with Spring Boot's actuator (Boot 4's {@code spring-boot-health}:
 * the {@code -Dboot35} build leaves this class out, see docs/spring-boot.md, Compatibility).
 */
@SpringBootTest(classes = HealthIT.App.class, properties = "management.endpoints.web.exposure.include=health")
@DirtiesContext
final class HealthIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

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
    DeferlockHealthIndicator health;

    @Test
    void health_isDownWhileRedisIsDead_andUpAfterItsRestart() {
        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
        assertThat(health.health(true).getDetails())
                .containsKey("evictionPolicy")
                .containsKey("workers");
        SERVER.kill();
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> health.health(true).getStatus().equals(Status.DOWN));
        } finally {
            SERVER.restart();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> health.health(true).getStatus().equals(Status.UP));
    }

    @Test
    void health_isDownWhenTheEvictionPolicyMayDropKeys() {
        SERVER.config("maxmemory-policy", "allkeys-lru");
        try {
            assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.health(true).getDetails().get("problems").toString())
                    .contains("allkeys-lru");
        } finally {
            SERVER.config("maxmemory-policy", "noeviction");
        }
        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
    }
}
