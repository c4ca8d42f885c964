package io.github.deferlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
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

/**
 * Trace context through jobs in an application traced by Boot's own OpenTelemetry wiring (its {@code Tracer},
 * {@code Propagator} and tracing handler group, plus the starter's {@code JobRunTracingHandler}); the ended spans
 * are collected by a {@code SpanProcessor} bean. A delayed job's run is a child of its enqueue span; a retry is a
 * new span linked to it; a DEFER round trip stays in the caller's trace, and a call deferred again has its later
 * run linked to the deferral's enqueue span.
 */
@SpringBootTest(
        classes = TracingIT.App.class,
        properties = {
            "management.tracing.sampling.probability=1.0",
            // Boot 3.5's @SpringBootTest turns tracing (propagation included) off unless asked
            "spring.test.observability.auto-configure=true",
            "deferlock.deferrals.initial-delay=100ms",
            "deferlock.deferrals.max-delay=300ms",
            // the trace of a deferred call through its deferral job: timed DEFER (an ordered one parks the
            // call beside its lock, where no job carries the caller's trace headers)
            "deferlock.deferrals.mode=timed",
            "deferlock.queues.retried.retry-initial-delay=100ms",
            "deferlock.queues.retried.retry-max-delay=200ms"
        })
@DirtiesContext
final class TracingIT {

    static final RedisServer SERVER = RedisServer.start();

    private static final String NO_PARENT = "0000000000000000";

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

        /** The one span called {@code name} in {@code traceId}. */
        SpanData named(String name, String traceId) {
            List<SpanData> found = named(name).stream()
                    .filter(s -> s.getTraceId().equals(traceId))
                    .toList();
            assertThat(found)
                    .as("spans %s in trace %s of %s", name, traceId, summary())
                    .hasSize(1);
            return found.get(0);
        }

        /** The one span called {@code name} whose parent is {@code parentSpanId}. */
        SpanData childOf(String name, String parentSpanId) {
            List<SpanData> found = named(name).stream()
                    .filter(s -> s.getParentSpanId().equals(parentSpanId))
                    .toList();
            assertThat(found)
                    .as("spans %s under %s of %s", name, parentSpanId, summary())
                    .hasSize(1);
            return found.get(0);
        }

        /** The spans called {@code name} with a link to {@code spanId}. */
        List<SpanData> linkedTo(String name, String spanId) {
            return named(name).stream()
                    .filter(s -> s.getLinks().stream()
                            .anyMatch(l -> l.getSpanContext().getSpanId().equals(spanId)))
                    .toList();
        }

        /** One line per span: name, trace, parent -> span, links. */
        String summary() {
            return spans.stream()
                    .map(s -> s.getName() + " " + s.getTraceId() + " " + s.getParentSpanId() + " -> " + s.getSpanId()
                            + " links "
                            + s.getLinks().stream()
                                    .map(l -> l.getSpanContext().getSpanId())
                                    .toList())
                    .collect(Collectors.joining("\n", "\n", ""));
        }

        List<SpanData> named(String name) {
            return spans.stream().filter(s -> s.getName().equals(name)).toList();
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

    /** A listener whose first run of each payload fails, so the job is retried. */
    public static class FailingOnceListener {
        final List<String> got = new CopyOnWriteArrayList<>();

        @DelayQueueListener(queue = "retried")
        public void on(String payload) {
            boolean first = !got.contains(payload);
            got.add(payload);
            if (first) {
                throw new IllegalStateException("first run of " + payload + " fails: retried");
            }
        }
    }

    /** Counts the deferrals of each lock key. */
    static final class Deferrals implements ConflictListener {
        final Map<String, Integer> deferrals = new ConcurrentHashMap<>();

        @Override
        public void onDeferred(String key, int deferrals, Duration delay) {
            this.deferrals.merge(key, deferrals, Math::max);
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
        Deferrals deferralCounts() {
            return new Deferrals();
        }

        @Bean
        OrderService orderService(RedisLocks locks) {
            return new OrderService(locks);
        }

        @Bean
        TracedListener tracedListener() {
            return new TracedListener();
        }

        @Bean
        FailingOnceListener failingOnceListener() {
            return new FailingOnceListener();
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
    FailingOnceListener failingOnce;

    @Autowired
    Deferrals deferrals;

    @Autowired
    OrderService orders;

    /** The span of a request observation that ran {@code body}, once it ended. */
    private SpanData request(String name, Runnable body) {
        Observation.createNotStarted(name, registry).observe(body);
        return spans.named(name).get(0);
    }

    @Test
    void aDelayedJob_runsInTheTraceOfItsEnqueue() {
        SpanData request = request(
                "request-delayed", () -> queues.get("traced", String.class).enqueue("hello", Duration.ofMillis(300)));
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.got.contains("hello"));
        SpanData enqueue = spans.named("enqueue traced", request.getTraceId());
        assertThat(enqueue.getParentSpanId()).isEqualTo(request.getSpanId());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !spans.named("run traced").isEmpty());
        SpanData run = spans.named("run traced", request.getTraceId());
        assertThat(run.getParentSpanId()).isEqualTo(enqueue.getSpanId());
        assertThat(run.getLinks()).isEmpty();
    }

    @Test
    void aRetry_isANewSpanLinkedToTheEnqueueSpan_notItsChild() {
        SpanData request = request(
                "request-retried", () -> queues.get("retried", String.class).enqueue("flaky"));
        SpanData enqueue = spans.named("enqueue retried", request.getTraceId());
        await().atMost(Duration.ofSeconds(30)).until(() -> failingOnce.got.size() == 2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> spans.named("run retried").size() == 2);

        SpanData first = spans.childOf("run retried", enqueue.getSpanId());
        assertThat(first.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(first.getLinks()).isEmpty();

        assertThat(spans.linkedTo("run retried", enqueue.getSpanId()))
                .singleElement()
                .satisfies(retry -> {
                    assertThat(retry.getParentSpanId())
                            .as("a root: the worker has no current span")
                            .isEqualTo(NO_PARENT);
                    assertThat(retry.getTraceId()).isNotEqualTo(request.getTraceId());
                    assertThat(retry.getLinks()).singleElement().satisfies(link -> {
                        assertThat(link.getSpanContext().getTraceId()).isEqualTo(request.getTraceId());
                        assertThat(link.getSpanContext().getSpanId()).isEqualTo(enqueue.getSpanId());
                    });
                });
    }

    @Test
    void aDeferredCall_runsInTheTraceOfTheCallThatDeferredIt() throws Exception {
        SpanData request;
        try (RedisClient otherClient = SERVER.newClient();
                RedisLocks other = RedisLocks.builder(otherClient).build()) {
            DistributedLock held = other.get("order:77");
            assertThat(held.tryLock()).isTrue();
            LockOutcome<?>[] outcome = new LockOutcome<?>[1];
            request = request("request-deferred", () -> outcome[0] = orders.deferring(77, "traced"));
            assertThat(outcome[0].isDeferred()).isTrue();
            held.unlock();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> orders.runs().stream().anyMatch(r -> r.orderId() == 77));
        SpanData enqueue = spans.named("enqueue deferlock-deferred", request.getTraceId());
        await().atMost(Duration.ofSeconds(10)).until(() -> spans.named("run deferlock-deferred").stream()
                .anyMatch(s -> s.getTraceId().equals(request.getTraceId())));
        SpanData run = spans.named("run deferlock-deferred", request.getTraceId());
        assertThat(run.getParentSpanId()).isEqualTo(enqueue.getSpanId());
        assertThat(orders.runs().stream().filter(r -> r.orderId() == 77))
                .singleElement()
                .satisfies(r -> assertThat(r.heldLock()).isTrue());
    }

    @Test
    void aCallDeferredAgain_hasItsLaterRunLinkedToTheDeferralsEnqueueSpan() throws Exception {
        SpanData request;
        try (RedisClient otherClient = SERVER.newClient();
                RedisLocks other = RedisLocks.builder(otherClient).build()) {
            DistributedLock held = other.get("order:78");
            assertThat(held.tryLock()).isTrue();
            LockOutcome<?>[] outcome = new LockOutcome<?>[1];
            request = request("request-deferred-again", () -> outcome[0] = orders.deferring(78, "again"));
            assertThat(outcome[0].isDeferred()).isTrue();
            // the deferred run finds the lock still taken and defers the call again
            await().atMost(Duration.ofSeconds(30)).until(() -> deferrals.deferrals.getOrDefault("order:78", 0) >= 2);
            held.unlock();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> orders.runs().stream().anyMatch(r -> r.orderId() == 78));
        SpanData enqueue = spans.named("enqueue deferlock-deferred", request.getTraceId());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !spans.linkedTo("run deferlock-deferred", enqueue.getSpanId())
                        .isEmpty());
        // the run that deferred it again is the first run, a child in the caller's trace
        SpanData firstRun = spans.childOf("run deferlock-deferred", enqueue.getSpanId());
        assertThat(firstRun.getTraceId()).isEqualTo(request.getTraceId());
        // the run that handled it is a new span with a link to the deferral's enqueue span
        assertThat(spans.linkedTo("run deferlock-deferred", enqueue.getSpanId()))
                .allSatisfy(later -> {
                    assertThat(later.getTraceId()).isNotEqualTo(request.getTraceId());
                    assertThat(later.getParentSpanId()).isEqualTo(NO_PARENT);
                })
                .isNotEmpty();
    }
}
