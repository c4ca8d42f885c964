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
 * The deferlock health indicator ({@code management.health.deferlock.enabled}) and the {@code deferlock}
 * endpoint, when Spring Boot's health and actuator modules are present.
 */
@AutoConfiguration(after = DeferlockAutoConfiguration.class)
@ConditionalOnBean(DeferlockWorkers.class)
public class DeferlockActuatorAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public DeferlockActuatorAutoConfiguration() {}

    /** The health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("deferlock")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "deferlockHealthIndicator")
        DeferlockHealthIndicator deferlockHealthIndicator(
                UnifiedJedis redis,
                DelayQueues queues,
                Deferrals deferrals,
                DeferlockWorkers workers,
                DeferlockProperties properties) {
            return new DeferlockHealthIndicator(redis, queues, deferrals, workers, properties);
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
