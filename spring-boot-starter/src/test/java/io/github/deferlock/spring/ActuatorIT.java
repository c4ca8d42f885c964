package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.spring.EmailListener.Email;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;

/** The endpoint and the meters in a real application with Spring Boot's actuator (health: {@link HealthIT}). */
@SpringBootTest(
        classes = ActuatorIT.App.class,
        properties = {
            "deferlock.queues.emails.payload-type=io.github.deferlock.spring.EmailListener$Email",
            "management.endpoints.web.exposure.include=health,deferlock",
            "spring.jmx.enabled=true",
            "management.endpoints.jmx.exposure.include=deferlock",
            "deferlock.queue.gauge-refresh=100ms"
        })
@DirtiesContext
final class ActuatorIT {

    static final RedisServer SERVER = RedisServer.start();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        EmailListener emailListener() {
            return new EmailListener();
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
    ApplicationContext context;

    @Autowired
    DeferlockEndpoint endpoint;

    @Autowired
    MeterRegistry registry;

    @Autowired
    LockRunner runner;

    @Autowired
    DelayQueue<Email> emails;

    @Autowired
    EmailListener listener;

    @Test
    void healthIndicator_isThereExactlyWhenBootsHealthModuleIs() {
        // Boot 4's spring-boot-health; Boot 3.5 has none, and the starter's health configuration is skipped there
        boolean boot4Health = ClassUtils.isPresent("org.springframework.boot.health.contributor.HealthIndicator", null);
        assertThat(context.containsBean("deferlockHealthIndicator")).isEqualTo(boot4Health);
    }

    @Test
    void endpoint_listsQueues_andMetersArePublished() {
        QueueStats before = emails.stats();
        emails.enqueue(new Email("metrics:1"));
        emails.enqueue(new Email("metrics:later"), Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.handled().contains("metrics:1"));
        runner.withLock("metered", OnConflict.THROW, () -> {});

        Map<String, Object> body = endpoint.queues();
        @SuppressWarnings("unchecked")
        Map<String, DeferlockEndpoint.QueueDescriptor> queues =
                (Map<String, DeferlockEndpoint.QueueDescriptor>) body.get("queues");
        assertThat(queues).containsKeys("emails", "deferlock-deferred");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            QueueStats now = emails.stats();
            assertThat(now.enqueued() - before.enqueued()).isGreaterThanOrEqualTo(2);
            assertThat(now.acked() - before.acked()).isGreaterThanOrEqualTo(1);
            assertThat(((Map<?, ?>) endpoint.queues().get("queues")).get("emails"))
                    .isEqualTo(new DeferlockEndpoint.QueueDescriptor(
                            1, 0, 0, 0, now.enqueued(), now.acked(), now.deadLettered(), true));
        });

        assertThat(registry.get("deferlock.lock.acquired").timer().count()).isGreaterThanOrEqualTo(1);
        assertThat(registry.get("deferlock.conflict.processed").timer().count()).isGreaterThanOrEqualTo(1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> registry.get("deferlock.queue.due")
                                .tag("queue", "emails")
                                .gauge()
                                .value()
                        == 1.0);
    }
}
