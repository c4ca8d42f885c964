package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisServer;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.RedisClient;

/** Trace context through a delayed job and through a DEFER round trip, with the OpenTelemetry bridge. */
@SpringBootTest(
        classes = TracingIT.App.class,
        properties = {"deferlock.deferrals.initial-delay=100ms", "deferlock.deferrals.max-delay=300ms"})
@DirtiesContext
final class TracingIT {

    static final RedisServer SERVER = RedisServer.start();

    /** Keeps every ended span. */
    static final class FinishedSpans implements SpanProcessor {
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

        SpanData named(String name) {
            return spans.stream()
                    .filter(s -> s.getName().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
        }
    }

    /** A listener of the traced queue. */
    public static class TracedListener {
        final List<String> got = new CopyOnWriteArrayList<>();

        @DelayQueueListener(queue = "traced")
        public void on(String payload) {
            got.add(payload);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        FinishedSpans finishedSpans() {
            return new FinishedSpans();
        }

        @Bean
        ObservationRegistry observationRegistry(FinishedSpans spans) {
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
            return registry;
        }

        @Bean
        OrderService orderService(RedisLocks locks) {
            return new OrderService(locks);
        }

        @Bean
        TracedListener tracedListener() {
            return new TracedListener();
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", SERVER::host);
        registry.add("spring.data.redis.port", SERVER::port);
    }

    @AfterAll
    static void stopRedis() {
        SERVER.close();
    }

    @Autowired
    ObservationRegistry registry;

    @Autowired
    FinishedSpans spans;

    @Autowired
    DelayQueues queues;

    @Autowired
    TracedListener listener;

    @Autowired
    OrderService orders;

    @Test
    void aDelayedJob_runsInTheTraceOfItsEnqueue() {
        Observation.createNotStarted("request-delayed", registry)
                .observe(() -> queues.get("traced", String.class).enqueue("hello", Duration.ofMillis(300)));
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.got.contains("hello"));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> spans.spans.stream().anyMatch(s -> s.getName().equals("run traced")));
        SpanData request = spans.named("request-delayed");
        SpanData enqueue = spans.named("enqueue traced");
        SpanData run = spans.named("run traced");
        assertThat(enqueue.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(run.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(run.getParentSpanId()).isEqualTo(enqueue.getSpanId());
    }

    @Test
    void aDeferredCall_runsInTheTraceOfTheCallThatDeferredIt() throws Exception {
        try (RedisClient otherClient = SERVER.newClient();
                RedisLocks other = RedisLocks.builder(otherClient).build()) {
            DistributedLock held = other.get("order:77");
            assertThat(held.tryLock()).isTrue();
            LockOutcome<?>[] outcome = new LockOutcome<?>[1];
            Observation.createNotStarted("request-deferred", registry)
                    .observe(() -> outcome[0] = orders.deferring(77, "traced"));
            assertThat(outcome[0].isDeferred()).isTrue();
            held.unlock();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> !orders.runs().isEmpty());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> spans.spans.stream().anyMatch(s -> s.getName().equals("run deferlock-deferred")));
        SpanData request = spans.named("request-deferred");
        SpanData enqueue = spans.named("enqueue deferlock-deferred");
        SpanData run = spans.named("run deferlock-deferred");
        assertThat(enqueue.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(run.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(run.getParentSpanId()).isEqualTo(enqueue.getSpanId());
        assertThat(orders.runs()).singleElement().satisfies(r -> assertThat(r.heldLock())
                .isTrue());
    }
}
