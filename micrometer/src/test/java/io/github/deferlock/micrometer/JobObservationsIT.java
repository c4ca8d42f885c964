package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.testing.RedisExtension;
import io.micrometer.observation.Observation;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/** A traceparent stored at enqueue is the parent of every run of the job, after a delay and after a retry. */
@ExtendWith(RedisExtension.class)
final class JobObservationsIT {

    /** Keeps every ended span, in memory. */
    private static final class FinishedSpans implements SpanProcessor {
        final List<SpanData> spans = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Context parent, ReadWriteSpan span) {}

        @Override
        public boolean isStartRequired() {
            return false;
        }

        @Override
        public void onEnd(ReadableSpan span) {
            spans.add(span.toSpanData());
        }

        @Override
        public boolean isEndRequired() {
            return true;
        }
    }

    @Test
    void theEnqueueSpan_isTheParentOfEachRun(RedisClient redis) {
        FinishedSpans spans = new FinishedSpans();
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(
                        SdkTracerProvider.builder().addSpanProcessor(spans).build())
                .setPropagators(propagators)
                .build();
        io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("test");
        OtelTracer tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> {});
        OtelPropagator propagator = new OtelPropagator(propagators, otel);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig()
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                        new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                        new DefaultTracingObservationHandler(tracer)));
        JobObservations observations = new JobObservations(registry);

        DelayQueue<String> queue = DelayQueue.builder(redis, "traced", String.class)
                .headers(observations.headers("traced"))
                .build();
        Map<Integer, String> traceparentSeen = new ConcurrentHashMap<>();
        AtomicInteger runs = new AtomicInteger();
        Observation request = Observation.createNotStarted("request", registry);
        request.observe(() -> queue.enqueue("hello", Duration.ofMillis(300)));
        try (DelayQueueWorker<String> worker = DelayQueueWorker.builder(queue, observations.handler("traced", job -> {
                    int n = runs.incrementAndGet();
                    traceparentSeen.put(n, job.headers().getOrDefault("traceparent", ""));
                    if (n == 1) {
                        throw new IllegalStateException("first run fails: retried");
                    }
                }))
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.get() >= 2 && worker.isRunning());
        }
        List<SpanData> finished = List.copyOf(spans.spans);
        SpanData req = finished.stream()
                .filter(s -> s.getName().equals("request"))
                .findFirst()
                .orElseThrow();
        SpanData enqueue = finished.stream()
                .filter(s -> s.getName().equals("enqueue traced"))
                .findFirst()
                .orElseThrow();
        List<SpanData> runSpans =
                finished.stream().filter(s -> s.getName().equals("run traced")).toList();
        assertThat(enqueue.getTraceId()).isEqualTo(req.getTraceId());
        assertThat(enqueue.getParentSpanId()).isEqualTo(req.getSpanId());
        // W3C traceparent: version 00, the trace, the enqueue span, then the flags (sampled, maybe random-id)
        assertThat(traceparentSeen.get(1)).matches("00-" + req.getTraceId() + "-" + enqueue.getSpanId() + "-0[13]");
        assertThat(traceparentSeen.get(2)).as("the retry sees the same headers").isEqualTo(traceparentSeen.get(1));
        assertThat(runSpans).hasSize(2).allSatisfy(run -> {
            assertThat(run.getTraceId()).isEqualTo(req.getTraceId());
            assertThat(run.getParentSpanId()).isEqualTo(enqueue.getSpanId());
        });
        assertThat(runSpans)
                .anySatisfy(run ->
                        assertThat(run.getStatus().getStatusCode().name()).isEqualTo("ERROR"));
    }
}
