package io.github.deferlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.ConflictListener;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Trace context across two JVMs: this JVM (A) enqueues inside an observation; a worker JVM (B), with its own
 * in-memory exporter, runs the jobs and prints every span it ends. After a delay the run is a child of A's
 * enqueue span; a retry is a new trace linked to it; a DEFER round trip stays in A's trace.
 */
@ExtendWith(RedisExtension.class)
final class TracingAcrossJvmsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** JVM B: the "traced" queue's worker and the deferral worker, all traced into stdout. */
    public static final class WorkerMain {
        public static void main(String[] args) throws Exception {
            InMemoryTracing tracing = new InMemoryTracing(span -> print(InMemoryTracing.line(span)));
            JobObservations observations = new JobObservations(tracing.registry);
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
            // timed DEFER: a deferred run is a job of its own, carrying the caller's trace context; an ordered
            // (parked) run is not linked to the caller's trace yet (CHANGELOG, issue 27)
            Deferrals deferrals = Deferrals.builder(redis, "deferred")
                    .mode(DeferMode.TIMED)
                    .backoff(Backoff.fixed(Duration.ofSeconds(1)))
                    .queueHeaders(observations.headers("deferred"))
                    .build();
            ConflictAwareHandler<String> orders = ConflictAwareHandler.builder("orders", String.class, locks)
                    .key(m -> "order:" + m)
                    .handler(m -> print("HANDLED " + m + " " + tracing.currentSpanId()))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .listener(new ConflictListener() {
                        @Override
                        public void onDeferred(String key, int deferrals, Duration delay) {
                            print("DEFERRED " + key + " " + deferrals);
                        }
                    })
                    .build();
            DelayQueue<String> queue = DelayQueue.builder(redis, "traced", String.class)
                    .backoff(Backoff.fixed(Duration.ofMillis(100)))
                    .build();
            DelayQueueWorker.builder(queue, observations.handler("traced", job -> {
                        print("RUN " + job.payload() + " " + job.attempts() + " " + tracing.currentSpanId());
                        if (job.payload().equals("fail-once") && job.attempts() == 1) {
                            throw new IllegalStateException("first run fails: retried");
                        }
                        if (job.payload().startsWith("defer-")) {
                            Outcome outcome = orders.handle(job.payload());
                            print("OUTCOME " + job.payload() + " " + outcome);
                        }
                    }))
                    .build()
                    .start();
            DelayQueueWorker.builder(deferrals.queue(), observations.handler("deferred", deferrals.jobHandler()))
                    .build()
                    .start();
            print("READY");
            Thread.sleep(Long.MAX_VALUE);
        }

        private static synchronized void print(String line) {
            System.out.println(line);
            System.out.flush();
        }
    }

    /** A span line printed by B. */
    private record Printed(String name, String traceId, String spanId, String parentId, List<String> links) {
        static Printed parse(String line) {
            String[] f = line.split("\\|", -1);
            return new Printed(f[1], f[2], f[3], f[4], f[5].isEmpty() ? List.of() : List.of(f[5].split(",")));
        }
    }

    private static Printed span(JvmProcess worker, String spanId) {
        return Printed.parse(
                worker.awaitLine(l -> l.startsWith("SPAN|") && l.split("\\|", -1)[3].equals(spanId), WAIT));
    }

    /** The span id B printed last on a line starting with {@code prefix}. */
    private static String lastWord(JvmProcess worker, String prefix) {
        String line = worker.awaitLine(prefix, WAIT);
        return line.substring(line.lastIndexOf(' ') + 1);
    }

    @Test
    void enqueueSpanInA_isTheParentOrTheLinkOfEveryRunInB(RedisServer server, RedisClient redis) {
        InMemoryTracing tracing = new InMemoryTracing(span -> {});
        JobObservations observations = new JobObservations(tracing.registry);
        DelayQueue<String> queue = DelayQueue.builder(redis, "traced", String.class)
                .headers(observations.headers("traced"))
                .build();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                JvmProcess worker = JvmProcess.start(WorkerMain.class, Integer.toString(server.port()))) {
            worker.awaitLine("READY", WAIT);
            // another holder has the lock of "defer-me", so B's handler defers it
            LockLease held = locks.get("order:defer-me").acquire(Duration.ZERO, Duration.ofSeconds(60));
            LockLease heldLonger = locks.get("order:defer-twice").acquire(Duration.ZERO, Duration.ofSeconds(60));
            Observation.createNotStarted("request", tracing.registry).observe(() -> {
                queue.enqueue("ok", Duration.ofMillis(300));
                queue.enqueue("fail-once", Duration.ofMillis(300));
                queue.enqueue("defer-me", Duration.ofMillis(300));
                queue.enqueue("defer-twice", Duration.ofMillis(300));
            });
            List<SpanData> finished = List.copyOf(tracing.finished);
            SpanData request = finished.get(finished.size() - 1);
            assertThat(request.getName()).isEqualTo("request");
            List<SpanData> enqueues = finished.stream()
                    .filter(s -> s.getName().equals("enqueue traced"))
                    .toList();
            assertThat(enqueues).hasSize(4);
            String trace = request.getTraceId();
            String enqueueOk = enqueues.get(0).getSpanId();
            String enqueueFailOnce = enqueues.get(1).getSpanId();
            String enqueueDeferMe = enqueues.get(2).getSpanId();
            String enqueueDeferTwice = enqueues.get(3).getSpanId();

            // after a delay: the first run in B is a child of A's enqueue span, in A's trace
            Printed ok = span(worker, lastWord(worker, "RUN ok 1 "));
            assertThat(ok.name()).isEqualTo("run traced");
            assertThat(ok.traceId()).isEqualTo(trace);
            assertThat(ok.parentId()).isEqualTo(enqueueOk);
            assertThat(ok.links()).isEmpty();

            // a retry: a new trace (no current span in the worker) with a link to A's enqueue span
            Printed first = span(worker, lastWord(worker, "RUN fail-once 1 "));
            assertThat(first.traceId()).isEqualTo(trace);
            assertThat(first.parentId()).isEqualTo(enqueueFailOnce);
            Printed retry = span(worker, lastWord(worker, "RUN fail-once 2 "));
            assertThat(retry.name()).isEqualTo("run traced");
            assertThat(retry.parentId()).as("a root").isEqualTo("0000000000000000");
            assertThat(retry.traceId()).isNotEqualTo(trace);
            assertThat(retry.links()).containsExactly(trace + ":" + enqueueFailOnce);

            // a DEFER round trip: the run that defers is in A's trace, the deferral is stored from inside it,
            // and the deferred run continues (or, if deferred again, links to) that trace
            Printed deferring = span(worker, lastWord(worker, "RUN defer-me 1 "));
            assertThat(deferring.traceId()).isEqualTo(trace);
            assertThat(deferring.parentId()).isEqualTo(enqueueDeferMe);
            worker.awaitLine("OUTCOME defer-me DEFERRED", WAIT);
            held.close();
            Printed handled = span(worker, lastWord(worker, "HANDLED defer-me "));
            assertThat(handled.name()).isEqualTo("run deferred");
            Printed storedDeferral = Printed.parse(worker.awaitLine(
                    l -> l.startsWith("SPAN|enqueue deferred|") && l.endsWith("|" + deferring.spanId() + "|"), WAIT));
            assertThat(storedDeferral.traceId()).isEqualTo(trace);
            if (handled.links().isEmpty()) {
                assertThat(handled.traceId()).isEqualTo(trace);
                assertThat(handled.parentId()).isEqualTo(storedDeferral.spanId());
            } else {
                assertThat(handled.links()).containsExactly(trace + ":" + storedDeferral.spanId());
            }

            // deferred again (the lock stays taken past the first deferred run): that later run is a new trace
            // linked to the deferral's enqueue span, which is in A's trace
            Printed deferringTwice = span(worker, lastWord(worker, "RUN defer-twice 1 "));
            assertThat(deferringTwice.parentId()).isEqualTo(enqueueDeferTwice);
            worker.awaitLine("DEFERRED order:defer-twice 2", WAIT);
            heldLonger.close();
            Printed handledLater = span(worker, lastWord(worker, "HANDLED defer-twice "));
            Printed storedTwice = Printed.parse(worker.awaitLine(
                    l -> l.startsWith("SPAN|enqueue deferred|") && l.endsWith("|" + deferringTwice.spanId() + "|"),
                    WAIT));
            assertThat(storedTwice.traceId()).isEqualTo(trace);
            assertThat(handledLater.name()).isEqualTo("run deferred");
            assertThat(handledLater.links()).containsExactly(trace + ":" + storedTwice.spanId());
            assertThat(handledLater.traceId()).isNotEqualTo(trace);
        }
    }
}
