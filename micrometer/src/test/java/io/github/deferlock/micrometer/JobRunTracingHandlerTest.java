package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.TraceContext;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The link target is read from a W3C traceparent header, and only from a valid one. */
final class JobRunTracingHandlerTest {

    private final InMemoryTracing tracing = new InMemoryTracing(span -> {});

    private Optional<TraceContext> read(String traceparent) {
        return JobRunTracingHandler.creationContext(tracing.tracer, Map.of("traceparent", traceparent));
    }

    @Test
    void validTraceparent_givesItsTraceSpanAndSampledFlag() {
        TraceContext c =
                read("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").orElseThrow();
        assertThat(c.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(c.spanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(c.sampled()).isTrue();
        assertThat(read("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
                        .orElseThrow()
                        .sampled())
                .isFalse();
    }

    @Test
    void missingOrInvalidTraceparent_givesNoLink() {
        assertThat(JobRunTracingHandler.creationContext(tracing.tracer, Map.of()))
                .isEmpty();
        assertThat(read("garbage")).isEmpty();
        assertThat(read("00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
                .as("all-zero trace id")
                .isEmpty();
        assertThat(read("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"))
                .as("all-zero span id")
                .isEmpty();
        assertThat(read("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"))
                .as("upper case is invalid")
                .isEmpty();
    }
}
