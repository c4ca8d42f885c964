package io.github.deferlock.micrometer;

import io.github.deferlock.redis.internal.Require;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Micrometer Tracing handler for {@link JobRunContext}s that follows the OpenTelemetry messaging conventions:
 * the first run of a job is a child of the span stored at enqueue (as with the generic receiver handler); a
 * retry, and a deferred message deferred again, is a new {@code CONSUMER} span, a child of the current span if
 * there is one and a trace root otherwise, with a span link to the stored W3C {@code traceparent}. The
 * Observation API has no way to carry a link, so this class needs {@code micrometer-tracing} (an optional
 * dependency of this module). The Spring Boot starter registers it as an ordered {@code ObservationHandler} bean;
 * elsewhere, register it ahead of the generic receiver handler:
 *
 * <pre>{@code
 * registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
 *         new JobRunTracingHandler(tracer, propagator),
 *         new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
 *         new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
 *         new DefaultTracingObservationHandler(tracer)));
 * }</pre>
 *
 * <p>With the OpenTelemetry bridge the link is a real span link; the Brave bridge has no links and records it
 * as tags {@code links[0].traceId} and {@code links[0].spanId}. Threadsafe.
 */
public final class JobRunTracingHandler extends PropagatingReceiverTracingObservationHandler<JobRunContext> {

    /** {@code version-traceid-spanid-flags}, W3C trace context level 1. */
    private static final Pattern TRACEPARENT =
            Pattern.compile("^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$");

    /** A handler on {@code tracer} that extracts first-run parents with {@code propagator}. */
    public JobRunTracingHandler(Tracer tracer, Propagator propagator) {
        super(Require.notNull("tracer", tracer), Require.notNull("propagator", propagator));
    }

    @Override
    public void onStart(JobRunContext context) {
        if (!context.linksToCreation()) {
            super.onStart(context);
            return;
        }
        Tracer tracer = getTracer();
        Span.Builder builder = tracer.spanBuilder();
        Span parent = getParentSpan(context);
        if (parent == null) {
            parent = tracer.currentSpan();
        }
        if (parent != null) {
            builder.setParent(parent.context());
        } else {
            builder.setNoParent();
        }
        creationContext(tracer, context.job().headers()).ifPresent(c -> builder.addLink(new Link(c)));
        String name = context.getContextualName() != null ? context.getContextualName() : context.getName();
        builder.name(name).kind(Span.Kind.CONSUMER);
        getTracingContext(context).setSpan(builder.start());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof JobRunContext;
    }

    /** The context in a job's {@code traceparent} header, if it holds a valid one. */
    static Optional<TraceContext> creationContext(Tracer tracer, Map<String, String> headers) {
        String value = headers.get("traceparent");
        if (value == null) {
            return Optional.empty();
        }
        Matcher m = TRACEPARENT.matcher(value.trim());
        if (!m.matches() || m.group(1).matches("0+") || m.group(2).matches("0+")) {
            return Optional.empty();
        }
        boolean sampled = (Integer.parseInt(m.group(3), 16) & 1) == 1;
        return Optional.of(tracer.traceContextBuilder()
                .traceId(m.group(1))
                .spanId(m.group(2))
                .sampled(sampled)
                .build());
    }
}
