package io.github.deferlock.micrometer;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * An OpenTelemetry SDK behind Micrometer Tracing whose ended spans stay in memory (and go to a callback), with
 * an observation registry carrying {@link JobRunTracingHandler} and the generic propagating handlers.
 */
final class InMemoryTracing {

    final List<SpanData> finished = new CopyOnWriteArrayList<>();
    final OtelTracer tracer;
    final ObservationRegistry registry = ObservationRegistry.create();

    InMemoryTracing(Consumer<SpanData> onEnd) {
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        SpanProcessor keep = new SpanProcessor() {
            @Override
            public void onStart(Context parent, ReadWriteSpan span) {}

            @Override
            public boolean isStartRequired() {
                return false;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                SpanData data = span.toSpanData();
                finished.add(data);
                onEnd.accept(data);
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        };
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(
                        SdkTracerProvider.builder().addSpanProcessor(keep).build())
                .setPropagators(propagators)
                .build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("test");
        tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> {});
        OtelPropagator propagator = new OtelPropagator(propagators, otel);
        registry.observationConfig()
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new JobRunTracingHandler(tracer, propagator),
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)));
    }

    /** The span id of the current span, or "-". */
    String currentSpanId() {
        io.micrometer.tracing.Span span = tracer.currentSpan();
        return span == null ? "-" : span.context().spanId();
    }

    /** {@code SPAN|name|traceId|spanId|parentSpanId|linkTrace:linkSpan,...}: one line per ended span. */
    static String line(SpanData s) {
        String links = s.getLinks().stream()
                .map(l -> l.getSpanContext().getTraceId() + ":"
                        + l.getSpanContext().getSpanId())
                .collect(Collectors.joining(","));
        return "SPAN|" + s.getName() + "|" + s.getTraceId() + "|" + s.getSpanId() + "|" + s.getParentSpanId() + "|"
                + links;
    }
}
