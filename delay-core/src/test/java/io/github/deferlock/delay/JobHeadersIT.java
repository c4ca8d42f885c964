package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.type.TypeReference;
import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** Job headers with a real Redis: stored with the job, kept through every move, seen by the handler. */
@ExtendWith(RedisExtension.class)
final class JobHeadersIT {
    private static final Map<String, String> TRACE =
            Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tenant", "t-42");

    private static DelayQueue<Msg> queue(UnifiedJedis redis) {
        return DelayQueue.builder(redis, "h", Msg.class).build();
    }

    /** Claims until one job comes (generous bound, no sleeps). */
    private static Job<Msg> claimOne(DelayQueue<Msg> q) {
        List<Job<Msg>> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(q.claim(1));
            return !got.isEmpty();
        });
        return got.get(0);
    }

    @Test
    void headers_surviveADelay_andShowInGet(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        String id = q.enqueueJob(
                        NewJob.of(new Msg("later", 1), Duration.ofMillis(200)).withHeaders(TRACE))
                .id();
        assertThat(q.get(id).orElseThrow().headers()).isEqualTo(TRACE);
        assertThat(q.claim(1)).isEmpty(); // not due yet

        Job<Msg> job = claimOne(q);
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.payload()).isEqualTo(new Msg("later", 1));
        assertThat(job.headers()).isEqualTo(TRACE);
        assertThat(q.get(id).orElseThrow().headers()).isEqualTo(TRACE);
    }

    @Test
    void headers_surviveANackAndTheRetry(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        q.enqueueJob(NewJob.of(new Msg("flaky", 1)).withHeaders(TRACE));
        Job<Msg> first = claimOne(q);
        assertThat(q.nack(first, "boom", Duration.ZERO)).isTrue();

        Job<Msg> retry = claimOne(q);
        assertThat(retry.attempts()).isEqualTo(2);
        assertThat(retry.lastError()).contains("boom");
        assertThat(retry.headers()).isEqualTo(TRACE);
    }

    @Test
    void headers_surviveARescheduleWithAndWithoutAReplacementPayload(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        q.enqueueJob(NewJob.of(new Msg("v1", 1)).withHeaders(TRACE));
        assertThat(q.reschedule(claimOne(q), Duration.ZERO, null)).isTrue();

        Job<Msg> kept = claimOne(q);
        assertThat(kept.payload()).isEqualTo(new Msg("v1", 1));
        assertThat(kept.headers()).isEqualTo(TRACE);
        assertThat(q.reschedule(kept, Duration.ZERO, new Msg("v2", 2))).isTrue();

        Job<Msg> replaced = claimOne(q);
        assertThat(replaced.payload()).isEqualTo(new Msg("v2", 2));
        assertThat(replaced.headers()).isEqualTo(TRACE);
    }

    @Test
    void headers_surviveTheDeadLettersAndTheirRequeue(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        String id =
                q.enqueueJob(NewJob.of(new Msg("poison", 1)).withHeaders(TRACE)).id();
        assertThat(q.deadLetter(claimOne(q), "bad input")).isTrue();

        DeadLetter dead = q.deadLetters().list(10).get(0);
        assertThat(dead.id()).isEqualTo(id);
        assertThat(dead.headers()).isEqualTo(TRACE);
        assertThat(dead.payloadJson()).isEqualTo("{\"text\":\"poison\",\"n\":1}"); // the headers are not in it
        assertThat(q.get(id).orElseThrow().headers()).isEqualTo(TRACE);

        assertThat(q.deadLetters().requeue(id)).isTrue();
        Job<Msg> again = claimOne(q);
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.headers()).isEqualTo(TRACE);
    }

    @Test
    void handler_seesTheHeaders_ofTheSupplierEvaluatedOnTheEnqueuingThread(RedisServer server) throws Exception {
        ThreadLocal<String> currentTrace = new ThreadLocal<>();
        AtomicInteger calls = new AtomicInteger();
        try (RedisClient redis = Clients.pooled(server)) {
            DelayQueue<Msg> q = DelayQueue.builder(redis, "h", Msg.class)
                    .headers(() -> {
                        calls.incrementAndGet();
                        String trace = currentTrace.get();
                        return trace == null ? null : Map.of("traceparent", trace, "origin", "supplier");
                    })
                    .build();
            // each job enqueued on a thread of its own, with its own context
            for (String trace : List.of("trace-a", "trace-b")) {
                CompletableFuture.runAsync(() -> {
                            currentTrace.set(trace);
                            q.enqueue(new Msg(trace, 0));
                        })
                        .get();
            }
            q.enqueue(new Msg("no-context", 0)); // the supplier returns null here: no headers
            q.enqueueJob(NewJob.of(new Msg("own-wins", 0)).withHeader("origin", "job"));
            assertThat(calls).hasValue(4);

            Map<String, Map<String, String>> seen = new ConcurrentHashMap<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(
                            q, job -> seen.put(job.payload().text(), job.headers()))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 4);
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(seen)
                    .containsOnly(
                            Map.entry("trace-a", Map.of("traceparent", "trace-a", "origin", "supplier")),
                            Map.entry("trace-b", Map.of("traceparent", "trace-b", "origin", "supplier")),
                            Map.entry("no-context", Map.of()),
                            Map.entry("own-wins", Map.of("origin", "job")));
        }
    }

    @Test
    void enqueueAll_carriesEachJobsHeaders_andCallsTheSupplierOncePerBatch(UnifiedJedis redis) {
        AtomicInteger calls = new AtomicInteger();
        DelayQueue<Msg> q = DelayQueue.builder(redis, "h", Msg.class)
                .headers(() -> Map.of("batch", "b" + calls.incrementAndGet()))
                .build();
        List<EnqueueResult> results = q.enqueueAll(List.of(
                NewJob.of("a", new Msg("a", 1), Duration.ZERO).withHeader("k", "1"),
                NewJob.at("b", new Msg("b", 2), Instant.EPOCH),
                NewJob.of("c", new Msg("c", 3), Duration.ZERO).withHeader("batch", "own")));
        assertThat(results).extracting(EnqueueResult::duplicate).containsOnly(false);
        assertThat(calls).hasValue(1);
        assertThat(q.get("a").orElseThrow().headers()).containsExactly(Map.entry("batch", "b1"), Map.entry("k", "1"));
        assertThat(q.get("b").orElseThrow().headers()).containsExactly(Map.entry("batch", "b1"));
        assertThat(q.get("c").orElseThrow().headers()).containsExactly(Map.entry("batch", "own"));
    }

    @Test
    void oversizedHeaders_areRefusedNamingTheLimit_andNothingIsStored(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "h", Msg.class)
                .headers(() -> Map.of("big", "x".repeat(DelayQueue.MAX_HEADERS_BYTES)))
                .build();
        assertThatThrownBy(() -> q.enqueue(new Msg("a", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("headers (keys and values) in UTF-8 bytes must be within [0, 8192], not 8195");
        assertThatThrownBy(() -> q.enqueueAll(List.of(NewJob.of(new Msg("b", 1)))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8192");
        assertThatThrownBy(() -> queue(redis)
                        .enqueueJob(NewJob.of(new Msg("c", 1))
                                .withHeader("k".repeat(DelayQueue.MAX_HEADER_KEY_BYTES + 1), "v")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be within [1, 128], not 129");
        assertThat(q.size(JobState.DUE)).isZero();
        assertThat(redis.hlen(QueueKeys.of("h").jobs())).isZero();
    }

    @Test
    void jobWithoutHeaders_isStoredExactlyAsThePreviousVersionStoredIt(UnifiedJedis redis) {
        String id = queue(redis).enqueue(new Msg("plain", 1)).id();
        String env = new String(
                redis.hget(QueueKeys.of("h").jobs(), id.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
        assertThat(env).matches("[0-9a-f]{12}w0\\|\\|\\|\\{\"text\":\"plain\",\"n\":1\\}");
    }

    @Test
    void envelopeStoredByThePreviousVersion_isClaimedWithNoHeaders(UnifiedJedis redis) {
        QueueKeys keys = QueueKeys.of("h");
        // written the way the previous version's enqueue.lua wrote a job: no headers block in the payload field
        redis.hset(keys.jobs(), bytes("old-1"), bytes("000000000001w0|||{\"text\":\"from 0.0\",\"n\":7}"));
        redis.zadd(keys.due(), 0, bytes("000000000001old-1"));
        redis.set(keys.seq(), bytes("1"));

        DelayQueue<Msg> q = queue(redis);
        assertThat(q.get("old-1").orElseThrow().headers()).isEmpty();
        Job<Msg> job = claimOne(q);
        assertThat(job.id()).isEqualTo("old-1");
        assertThat(job.payload()).isEqualTo(new Msg("from 0.0", 7));
        assertThat(job.headers()).isEmpty();
        assertThat(q.ack(job)).isTrue();
    }

    @Test
    void payloadOfAnotherType_withHeaders_isDeadLetteredAsUndecodable_keepingItsHeaders(UnifiedJedis redis) {
        DelayQueue<Map<String, Object>> raw = DelayQueue.builder(
                        redis, "h", new TypeReference<Map<String, Object>>() {})
                .build();
        String id = raw.enqueueJob(NewJob.<Map<String, Object>>of(Map.of("n", "not a number"))
                        .withHeaders(TRACE))
                .id();
        DelayQueue<Msg> q = queue(redis);
        assertThat(q.claim(10)).isEmpty();
        DeadLetter dead = q.deadLetters().list(10).get(0);
        assertThat(dead.id()).isEqualTo(id);
        assertThat(dead.cause()).isEqualTo(DeadLetterCause.UNDECODABLE_PAYLOAD);
        assertThat(dead.headers()).isEqualTo(TRACE);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
