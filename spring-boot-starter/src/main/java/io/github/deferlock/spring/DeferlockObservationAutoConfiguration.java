package io.github.deferlock.spring;

import io.github.deferlock.micrometer.JobObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Trace context through jobs, when the application has an {@link ObservationRegistry}: {@link JobObservations}
 * makes every queue of {@link DelayQueues} and the deferral queue store the enqueuing thread's trace
 * ({@code traceparent} with the OpenTelemetry bridge) in the job's headers, and every worker run a job in an
 * observation that continues it. Off with {@code deferlock.tracing.enabled=false}.
 */
@AutoConfiguration(
        before = DeferlockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass({ObservationRegistry.class, JobObservations.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "deferlock", name = "enabled", havingValue = "true", matchIfMissing = true)
public class DeferlockObservationAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public DeferlockObservationAutoConfiguration() {}

    /** The job observations. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "deferlock.tracing", name = "enabled", havingValue = "true", matchIfMissing = true)
    public JobObservations deferlockJobObservations(ObservationRegistry registry) {
        return new JobObservations(registry);
    }
}
