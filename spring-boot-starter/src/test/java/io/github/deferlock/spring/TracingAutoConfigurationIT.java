package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.micrometer.JobObservations;
import io.github.deferlock.micrometer.JobRunTracingHandler;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * When the starter registers {@link JobRunTracingHandler}: with every auto-configuration on the classpath
 * (Boot's OpenTelemetry tracing among them), as an application gets them, against a real redis-server.
 */
@ExtendWith(RedisExtension.class)
final class TracingAutoConfigurationIT {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    private static ApplicationContextRunner runner(RedisServer server) {
        return new ApplicationContextRunner()
                .withUserConfiguration(App.class)
                .withPropertyValues(
                        "spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
    }

    @Test
    void withATracer_theLinkHandlerIsRegisteredAheadOfBootsReceiverHandler(RedisServer server) {
        runner(server).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(JobRunTracingHandler.class);
            // Boot's generic receiver handler is still there for every other receiver context
            assertThat(context.getBeansOfType(PropagatingReceiverTracingObservationHandler.class))
                    .hasSize(2);
            // Boot groups tracing handlers into one first-matching composite in this order
            List<?> ordered = context.getBeanProvider(ObservationHandler.class)
                    .orderedStream()
                    .filter(h -> h instanceof PropagatingReceiverTracingObservationHandler<?>)
                    .toList();
            assertThat(ordered).hasSize(2);
            assertThat(ordered.get(0)).isInstanceOf(JobRunTracingHandler.class);
            assertThat(ordered.get(1)).isNotInstanceOf(JobRunTracingHandler.class);
        });
    }

    @Test
    void linkRetriesFalse_noLinkHandler_jobsStillTraced(RedisServer server) {
        runner(server)
                .withPropertyValues("deferlock.tracing.link-retries=false")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(JobObservations.class);
                    assertThat(context).doesNotHaveBean(JobRunTracingHandler.class);
                    assertThat(context).hasSingleBean(PropagatingReceiverTracingObservationHandler.class);
                });
    }

    @Test
    void tracingDisabled_noLinkHandler(RedisServer server) {
        runner(server).withPropertyValues("deferlock.tracing.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(JobObservations.class);
            assertThat(context).doesNotHaveBean(JobRunTracingHandler.class);
        });
    }

    @Test
    void noTracerBridge_noLinkHandler(RedisServer server) {
        // without a bridge Boot's no-op Tracer is the only one, with no Propagator: nothing to link with
        runner(server)
                .withClassLoader(new FilteredClassLoader(OtelTracer.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(JobObservations.class);
                    assertThat(context).doesNotHaveBean(JobRunTracingHandler.class);
                });
    }

    @Test
    void noMicrometerTracing_noLinkHandler(RedisServer server) {
        runner(server)
                .withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(JobObservations.class);
                    assertThat(context).doesNotHaveBean(JobRunTracingHandler.class);
                });
    }
}
