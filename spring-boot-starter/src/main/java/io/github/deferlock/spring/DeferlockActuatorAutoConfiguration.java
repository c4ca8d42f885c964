package io.github.deferlock.spring;

import io.github.deferlock.conflict.Deferrals;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@link DeferlockHealthCheck}; the deferlock health indicator ({@code management.health.deferlock.enabled})
 * when Spring Boot 4's health module is present; and the {@code deferlock} endpoint when the actuator is.
 */
@AutoConfiguration(after = DeferlockAutoConfiguration.class)
@ConditionalOnBean(DeferlockWorkers.class)
public class DeferlockActuatorAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public DeferlockActuatorAutoConfiguration() {}

    /** The checks behind the health indicator, free of any health API (a Boot 3.5 application adapts them). */
    @Bean
    @ConditionalOnMissingBean
    public DeferlockHealthCheck deferlockHealthCheck(
            UnifiedJedis redis,
            DelayQueues queues,
            Deferrals deferrals,
            DeferlockWorkers workers,
            DeferlockProperties properties) {
        return new DeferlockHealthCheck(redis, queues, deferrals, workers, properties);
    }

    /** The health indicator, on Spring Boot 4's health module (skipped on Boot 3.5, which has none). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("deferlock")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "deferlockHealthIndicator")
        DeferlockHealthIndicator deferlockHealthIndicator(DeferlockHealthCheck check) {
            return new DeferlockHealthIndicator(check);
        }
    }

    /** The endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
    @ConditionalOnAvailableEndpoint(DeferlockEndpoint.class)
    static class Endpoints {
        @Bean
        @ConditionalOnMissingBean
        DeferlockEndpoint deferlockEndpoint(DelayQueues queues, Deferrals deferrals, DeferlockWorkers workers) {
            return new DeferlockEndpoint(queues, deferrals, workers);
        }
    }
}
