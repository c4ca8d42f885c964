package io.github.deferlock.spring;

import io.github.deferlock.micrometer.JobRunContext;
import io.github.deferlock.micrometer.JobRunTracingHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * Span links for retried and re-deferred jobs, when the application is traced with Micrometer Tracing (a {@link
 * Tracer} and a {@link Propagator} bean, as Boot's OpenTelemetry or Brave auto-configuration makes): registers
 * {@link JobRunTracingHandler} as an {@code ObservationHandler} bean. Boot's observation registry configurer puts
 * every tracing handler bean into one first-matching composite in {@code @Order}; this one is ordered at {@value
 * #JOB_RUN_TRACING_HANDLER_ORDER}, ahead of Boot's propagating receiver handler (1000), so it handles every
 * {@link JobRunContext} and leaves the other receiver contexts to Boot's handler. The first run of a job stays a
 * child of its enqueue span; a retry, and a deferred call deferred again, is a new span linked to it.
 *
 * <p>Runs after Boot's {@code MicrometerTracingAutoConfiguration}: {@code JobRunTracingHandler} is a {@code
 * PropagatingReceiverTracingObservationHandler}, and Boot creates its own receiver handler only when no bean of
 * that type exists yet. Off with {@code deferlock.tracing.link-retries=false} (every run is then a child of the
 * enqueue span), and with {@code deferlock.tracing.enabled=false} or {@code deferlock.enabled=false}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration"
        })
@ConditionalOnClass({ObservationRegistry.class, Tracer.class, Propagator.class, JobRunTracingHandler.class})
@ConditionalOnBean({Tracer.class, Propagator.class})
@ConditionalOnProperty(
        prefix = "deferlock",
        name = {"enabled", "tracing.enabled", "tracing.link-retries"},
        havingValue = "true",
        matchIfMissing = true)
public class DeferlockTracingAutoConfiguration {

    /**
     * The {@code @Order} of the handler bean: ahead of Boot's {@code PropagatingReceiverTracingObservationHandler}
     * (1000) and sender handler (2000).
     */
    public static final int JOB_RUN_TRACING_HANDLER_ORDER = 900;

    /** Creates the auto-configuration; Spring calls it. */
    public DeferlockTracingAutoConfiguration() {}

    /** The handler that links retries and re-deferred runs to their enqueue span. */
    @Bean
    @ConditionalOnMissingBean
    @Order(JOB_RUN_TRACING_HANDLER_ORDER)
    public JobRunTracingHandler deferlockJobRunTracingHandler(Tracer tracer, Propagator propagator) {
        return new JobRunTracingHandler(tracer, propagator);
    }
}
