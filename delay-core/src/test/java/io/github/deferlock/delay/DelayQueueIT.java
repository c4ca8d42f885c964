package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
final class DelayQueueIT {

    private static DelayQueue<Msg> queue(UnifiedJedis redis) {
        return DelayQueue.builder(redis, "q", Msg.class).build();
    }

    private static Instant serverNow(UnifiedJedis redis) {
        return ServerTime.now(redis);
    }

    @Test
    void enqueue_claim_ack_deletesTheJob(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        EnqueueResult r = q.enqueue(new Msg("hi", 1));
        assertThat(r.duplicate()).isFalse();
        assertThat(r.id()).hasSize(16);
        assertThat(q.size(JobState.DUE)).isEqualTo(1);

        List<Job<Msg>> jobs = q.claim(10);
        assertThat(jobs).hasSize(1);
        Job<Msg> job = jobs.get(0);
        assertThat(job.id()).isEqualTo(r.id());
        assertThat(job.payload()).isEqualTo(new Msg("hi", 1));
        assertThat(job.attempts()).isEqualTo(1);
        assertThat(job.dueAt()).isEqualTo(r.dueAt());
        assertThat(job.lastError()).isEmpty();
        assertThat(q.get(r.id()).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
        assertThat(q.size(JobState.IN_FLIGHT)).isEqualTo(1);

        assertThat(q.ack(job)).isTrue();
        assertThat(job.isSettled()).isTrue();
        assertThat(q.ack(job)).isFalse();
        assertThat(q.get(r.id())).isEmpty();
        assertThat(q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT) + q.size(JobState.DEAD))
                .isZero();
    }

    @Test
    void enqueue_withDelay_isNotClaimableBeforeItsServerDueTime(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        EnqueueResult r = q.enqueue(new Msg("later", 1), Duration.ofMillis(300));
        assertThat(q.claim(10)).isEmpty();
        List<Job<Msg>> jobs = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> {
            jobs.addAll(q.claim(10));
            return !jobs.isEmpty();
        });
        assertThat(serverNow(redis)).isAfterOrEqualTo(r.dueAt());
        assertThat(jobs.get(0).id()).isEqualTo(r.id());
    }

    @Test
    void claim_ordersByDueTimeThenFifo(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        Instant at = Instant.now().minusSeconds(10);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(q.schedule("job-" + (char) ('z' - i), new Msg("m", i), at).id());
        }
        String earlier = q.schedule(new Msg("first", 0), at.minusSeconds(1)).id();
        List<String> claimed = q.claim(100).stream().map(Job::id).toList();
        List<String> expected = new ArrayList<>();
        expected.add(earlier);
        expected.addAll(ids);
        assertThat(claimed).containsExactlyElementsOf(expected);
    }

    @Test
    void enqueue_sameIdTwice_isReportedNotDuplicated(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        EnqueueResult first = q.enqueue("order-42", new Msg("a", 1), Duration.ofMinutes(5));
        EnqueueResult second = q.enqueue("order-42", new Msg("b", 2), Duration.ZERO);
        assertThat(first.duplicate()).isFalse();
        assertThat(second.duplicate()).isTrue();
        assertThat(second.dueAt()).isEqualTo(first.dueAt());
        assertThat(q.size(JobState.DUE)).isEqualTo(1);
        assertThat(q.claim(10)).isEmpty(); // the second did not make it due now
    }

    @Test
    void cancel_dueJob_isNeverDelivered(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        String id = q.enqueue(new Msg("x", 1)).id();
        String other = q.enqueue(new Msg("y", 2)).id();
        assertThat(q.cancel(id)).isTrue();
        assertThat(q.cancel(id)).isFalse();
        assertThat(q.get(id)).isEmpty();
        assertThat(q.claim(10)).extracting(Job::id).containsExactly(other);
    }

    @Test
    void nack_retriesWithBackoffThenDeadLettersWithLastError(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                .maxAttempts(3)
                .backoff(Backoff.fixed(Duration.ofMillis(50)))
                .build();
        String id = q.enqueue(new Msg("fail", 1)).id();
        for (int attempt = 1; attempt <= 3; attempt++) {
            List<Job<Msg>> jobs = new ArrayList<>();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        jobs.addAll(q.claim(1));
                        return !jobs.isEmpty();
                    });
            Job<Msg> job = jobs.get(0);
            assertThat(job.attempts()).isEqualTo(attempt);
            if (attempt > 1) {
                assertThat(job.lastError()).contains("boom " + (attempt - 1));
            }
            assertThat(q.nack(job, "boom " + attempt, null)).isTrue();
        }
        JobInfo info = q.get(id).orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DEAD);
        assertThat(info.attempts()).isEqualTo(3);
        assertThat(info.lastError()).contains("boom 3");
        List<DeadLetter> dead = q.deadLetters().list(10);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).reason()).isEqualTo("boom 3");
        assertThat(dead.get(0).payloadJson()).contains("\"fail\"");
    }

    @Test
    void nack_withExplicitDelay_makesItDueAfterThatDelay(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        q.enqueue(new Msg("a", 1));
        Job<Msg> job = q.claim(1).get(0);
        assertThat(q.nack(job, "later", Duration.ofMinutes(1))).isTrue();
        JobInfo info = q.get(job.id()).orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DUE);
        assertThat(info.dueAt().orElseThrow()).isAfter(serverNow(redis).plusSeconds(50));
        assertThat(q.claim(1)).isEmpty();
    }

    @Test
    void requeueDead_andPurgeDead_manageTheDeadLetters(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        for (int i = 0; i < 5; i++) {
            q.enqueue("d" + i, new Msg("m", i), Duration.ZERO);
        }
        for (Job<Msg> job : q.claim(10)) {
            assertThat(q.deadLetter(job, "poison")).isTrue();
        }
        assertThat(q.size(JobState.DEAD)).isEqualTo(5);
        assertThat(q.deadLetters().list(2)).extracting(DeadLetter::reason).containsExactly("poison", "poison");

        assertThat(q.deadLetters().requeue("d0")).isTrue();
        assertThat(q.deadLetters().requeue("d0")).isFalse();
        assertThat(q.deadLetters().requeue("nope")).isFalse();
        Job<Msg> again = q.claim(10).get(0);
        assertThat(again.id()).isEqualTo("d0");
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.lastError()).contains("poison");
        assertThat(q.ack(again)).isTrue();

        assertThat(q.deadLetters().requeueAll()).isEqualTo(4);
        assertThat(q.size(JobState.DEAD)).isZero();
        for (Job<Msg> job : q.claim(10)) {
            q.deadLetter(job, "poison again");
        }
        assertThat(q.deadLetters().purge()).isEqualTo(4);
        assertThat(q.size(JobState.DEAD)).isZero();
        assertThat(redis.hlen(QueueKeys.of("q").jobs())).isZero();
        assertThat(redis.hlen(QueueKeys.of("q").errors())).isZero();
    }

    @Test
    void claim_undecodablePayload_goesToDeadLettersWithReason(UnifiedJedis redis) {
        DelayQueue<Map<String, Object>> raw = DelayQueue.builder(
                        redis, "q", new TypeReference<Map<String, Object>>() {})
                .build();
        DelayQueue<Msg> q = queue(redis);
        String bad = raw.enqueue(Map.of("text", "x", "n", "not a number")).id();
        String good = q.enqueue(new Msg("fine", 1)).id();

        assertThat(q.claim(10)).extracting(Job::id).containsExactly(good);
        DeadLetter dead = q.deadLetters().list(10).get(0);
        assertThat(dead.id()).isEqualTo(bad);
        assertThat(dead.reason()).startsWith("undecodable payload").contains("not a number");
    }

    @Test
    void enqueue_payloadOverLimit_isRejectedNamingTheLimit(UnifiedJedis redis) {
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "q", Msg.class).maxPayloadBytes(100).build();
        assertThatThrownBy(() -> q.enqueue(new Msg("x".repeat(200), 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit of 100 bytes")
                .hasMessageContaining("maxPayloadBytes");
        assertThat(q.size(JobState.DUE)).isZero();
    }

    @Test
    void payload_namingAClass_isJustData(UnifiedJedis redis) {
        DelayQueue<Object> q = DelayQueue.builder(redis, "q", Object.class).build();
        q.enqueue(Map.of("@class", "java.lang.ProcessBuilder", "command", List.of("rm")));
        Object payload = q.claim(1).get(0).payload();
        assertThat(payload).isInstanceOf(Map.class);
        assertThat(((Map<?, ?>) payload).get("@class")).isEqualTo("java.lang.ProcessBuilder");
    }

    @Test
    void build_mapperWithDefaultTyping_isRefused(UnifiedJedis redis) {
        ObjectMapper mapper = new ObjectMapper()
                .activateDefaultTyping(BasicPolymorphicTypeValidator.builder()
                        .allowIfBaseType(Object.class)
                        .build());
        assertThatThrownBy(() -> DelayQueue.builder(redis, "q", Object.class)
                        .objectMapper(mapper)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default typing");
    }

    @Test
    void builder_settingTwice_namesTheOldValue(UnifiedJedis redis) {
        DelayQueue.Builder<Msg> b = DelayQueue.builder(redis, "q", Msg.class).visibilityTimeout(Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.visibilityTimeout(Duration.ofSeconds(6)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("visibilityTimeout was already set to 5 s");
        assertThatThrownBy(() -> DelayQueue.builder(redis, "a{b}", Msg.class))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void staleReceipt_isRefusedForAckNackExtendRescheduleAndDeadLetter(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                .visibilityTimeout(Duration.ofMillis(50))
                .build();
        q.enqueue(new Msg("a", 1));
        Job<Msg> first = q.claim(1).get(0);
        List<Job<Msg>> again = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> {
            again.addAll(q.claim(1));
            return !again.isEmpty();
        });
        Job<Msg> second = again.get(0);
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(second.lastError()).hasValueSatisfying(e -> assertThat(e).contains("visibility timeout"));
        assertThat(second.receipt()).isNotEqualTo(first.receipt());
        assertThat(q.extend(first, Duration.ofSeconds(10))).isFalse();
        assertThat(q.ack(first)).isFalse();
        assertThat(q.nack(first, "x", null)).isFalse();
        assertThat(q.reschedule(first, Duration.ZERO, null)).isFalse();
        assertThat(q.deadLetter(first, "x")).isFalse();
        assertThat(q.extend(second, Duration.ofSeconds(10))).isTrue();
        assertThat(q.ack(second)).isTrue();
    }

    @Test
    void extend_keepsTheJobInvisibleLonger(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                .visibilityTimeout(Duration.ofMillis(100))
                .build();
        q.enqueue(new Msg("a", 1));
        Job<Msg> job = q.claim(1).get(0);
        assertThat(q.extend(job, Duration.ofMinutes(1))).isTrue();
        JobInfo info = q.get(job.id()).orElseThrow();
        assertThat(info.visibleUntil().orElseThrow()).isAfter(serverNow(redis).plusSeconds(50));
        assertThat(q.claim(1)).isEmpty();
        assertThat(q.ack(job)).isTrue();
    }

    @Test
    void reschedule_doesNotCountAnAttemptAndCanReplaceThePayload(UnifiedJedis redis) {
        DelayQueue<Msg> q =
                DelayQueue.builder(redis, "q", Msg.class).maxAttempts(1).build();
        q.enqueue(new Msg("v1", 1));
        Job<Msg> job = q.claim(1).get(0);
        assertThat(q.reschedule(job, Duration.ZERO, new Msg("v2", 2))).isTrue();
        Job<Msg> again = q.claim(1).get(0);
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.payload()).isEqualTo(new Msg("v2", 2));
        assertThat(q.reschedule(again, Duration.ofMinutes(5), null)).isTrue();
        JobInfo info = q.get(again.id()).orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DUE);
        assertThat(info.attempts()).isZero();
    }

    @Test
    void get_reportsEachState(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        EnqueueResult r = q.enqueue("j", new Msg("a", 1), Duration.ofMillis(1));
        JobInfo due = q.get("j").orElseThrow();
        assertThat(due.state()).isEqualTo(JobState.DUE);
        assertThat(due.dueAt()).contains(r.dueAt());
        assertThat(due.attempts()).isZero();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !q.claim(1)
                .isEmpty());
        JobInfo inFlight = q.get("j").orElseThrow();
        assertThat(inFlight.state()).isEqualTo(JobState.IN_FLIGHT);
        assertThat(inFlight.attempts()).isEqualTo(1);
        assertThat(inFlight.visibleUntil()).isPresent();
        assertThat(q.get("missing")).isEmpty();
    }

    @Test
    void oldestDueAge_isZeroWhenNothingIsDueAndGrowsWhenItWaits(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        assertThat(q.oldestDueAge()).isZero();
        q.enqueue(new Msg("later", 1), Duration.ofHours(1));
        assertThat(q.oldestDueAge()).isZero();
        q.schedule(new Msg("old", 1), serverNow(redis).minusSeconds(30));
        assertThat(q.oldestDueAge()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(40));
    }

    @Test
    void schedule_before1970_isDueAtOnceAndEveryDueAtReportsTheRequestedTime(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        Instant at1960 = Instant.parse("1960-01-01T00:00:00Z");
        Instant lastMilliOf1969 = Instant.parse("1969-12-31T23:59:59.999Z"); // -1 ms: no "none" marker
        Instant epoch = Instant.EPOCH;
        Instant farPast = Instant.MIN; // earlier than Lua numbers count exactly: reported as the floor
        Instant floor = Instant.ofEpochMilli(-(1L << 53));

        EnqueueResult a = q.schedule("a", new Msg("a", 1), at1960);
        List<EnqueueResult> batch = q.enqueueAll(List.of(
                NewJob.at("b", new Msg("b", 2), lastMilliOf1969),
                NewJob.at("c", new Msg("c", 3), epoch),
                NewJob.at("d", new Msg("d", 4), farPast)));
        EnqueueResult again = q.schedule("a", new Msg("a2", 9), serverNow(redis).plusSeconds(60));

        Map<String, Instant> requested = Map.of("a", at1960, "b", lastMilliOf1969, "c", epoch, "d", floor);
        assertThat(a.dueAt()).isEqualTo(at1960);
        assertThat(batch).extracting(EnqueueResult::dueAt).containsExactly(lastMilliOf1969, epoch, floor);
        assertThat(again.duplicate()).isTrue();
        assertThat(again.dueAt()).isEqualTo(at1960);
        requested.forEach(
                (id, at) -> assertThat(q.get(id).orElseThrow().dueAt()).as(id).contains(at));

        // due at once, claimed in enqueue order (all wait with the same clamped score)
        List<Job<Msg>> jobs = q.claim(10);
        assertThat(jobs).extracting(Job::id).containsExactly("a", "b", "c", "d");
        jobs.forEach(job -> assertThat(job.dueAt()).as(job.id()).isEqualTo(requested.get(job.id())));
        requested.forEach(
                (id, at) -> assertThat(q.get(id).orElseThrow().dueAt()).as(id).contains(at));

        // a redelivery is due when it was returned, not at the requested time
        assertThat(q.nack(jobs.get(0), "again", Duration.ZERO)).isTrue();
        JobInfo redelivery = q.get("a").orElseThrow();
        assertThat(redelivery.state()).isEqualTo(JobState.DUE);
        assertThat(redelivery.dueAt().orElseThrow()).isAfter(Instant.parse("2020-01-01T00:00:00Z"));
    }

    @Test
    void clock_isUsedForTheLocalVisibilityEstimate(UnifiedJedis redis) {
        Instant fixed = Instant.parse("2030-01-01T00:00:00Z");
        DelayQueue<Msg> q = DelayQueue.builder(redis, "q", Msg.class)
                .clock(Clock.fixed(fixed, ZoneOffset.UTC))
                .visibilityTimeout(Duration.ofSeconds(7))
                .build();
        q.enqueue(new Msg("a", 1));
        assertThat(q.claim(1).get(0).visibleUntil()).isEqualTo(fixed.plusSeconds(7));
    }

    /**
     * One pipeline: with every reply withheld by the proxy, all 50,000 jobs are stored, so the client sent all
     * of the batch's script calls without waiting for a reply (a call-by-call client would stop after its
     * first call, whose reply never comes). Batched: at least 100 jobs per script call. Speed is the
     * benchmarks' business ({@code queue.enqueue.batch}).
     */
    @Test
    void enqueueAll_50kJobs_allScriptCallsSentBeforeAnyReply_fewScriptCalls_everyJobStored(
            UnifiedJedis redis, RedisServer server) {
        int n = 50_000;
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            payloads.add(new Msg("m", i));
        }
        DelayQueue<Msg> direct = queue(redis);
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), 3_000);
                Jedis stats = server.newConnection()) {
            DelayQueue<Msg> q = DelayQueue.builder(viaProxy, "q", Msg.class).build();
            q.enqueueAll(payloads.subList(0, 1000), Duration.ZERO); // script loaded, a pooled connection open
            stats.configResetStat();

            proxy.blackholeReplies();
            CompletableFuture<List<EnqueueResult>> call =
                    CompletableFuture.supplyAsync(() -> q.enqueueAll(payloads, Duration.ZERO));
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(direct.size(JobState.DUE))
                    .isEqualTo(1000 + n));
            long scriptCalls = commandCalls(stats, "evalsha") + commandCalls(stats, "eval");
            System.out.printf(
                    "enqueueAll of %d jobs: %d script calls, all run before any reply reached the client (Redis %s)%n",
                    n, scriptCalls, server.version());
            assertThat(scriptCalls).isBetween(1L, n / 100L);

            proxy.heal();
            proxy.cut(); // the withheld replies are gone: the call resends on a new connection (ids exist: no-op)
            List<EnqueueResult> results;
            try {
                results = call.join();
            } catch (CompletionException e) { // a client that does not resend after a lost reply may also say so
                assertThat(e.getCause()).isInstanceOf(DelayQueueException.class);
                results = null;
            }
            if (results != null) {
                assertThat(results).hasSize(n).noneMatch(EnqueueResult::duplicate);
                assertThat(results.stream().map(EnqueueResult::id).distinct()).hasSize(n);
            }
        }
        assertThat(direct.size(JobState.DUE)).isEqualTo(1000 + n);
    }

    private static long commandCalls(Jedis stats, String command) {
        for (String line : stats.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                int from = line.indexOf('=') + 1;
                return Long.parseLong(line.substring(from, line.indexOf(',', from)));
            }
        }
        return 0;
    }

    @Test
    void enqueueAll_sameIdsAgain_areAllDuplicates(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        List<NewJob<Msg>> jobs = new ArrayList<>();
        for (int i = 0; i < 450; i++) {
            jobs.add(NewJob.of("id-" + i, new Msg("m", i), Duration.ofSeconds(i)));
        }
        assertThat(q.enqueueAll(jobs)).noneMatch(EnqueueResult::duplicate);
        List<EnqueueResult> again = q.enqueueAll(jobs);
        assertThat(again).hasSize(450).allMatch(EnqueueResult::duplicate);
        assertThat(again.get(7).id()).isEqualTo("id-7");
        assertThat(q.size(JobState.DUE)).isEqualTo(450);
    }

    @Test
    void enqueueAll_newExistingInFlightAndRepeatedIds_eachReportedAsBefore(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        EnqueueResult waiting = q.enqueue("waiting", new Msg("w", 0), Duration.ofMinutes(5));
        q.enqueue("busy", new Msg("b", 0), Duration.ZERO);
        assertThat(q.claim(1)).extracting(Job::id).containsExactly("busy");
        Instant at = serverNow(redis).minusSeconds(1);
        List<NewJob<Msg>> jobs = new ArrayList<>();
        jobs.add(NewJob.of("waiting", new Msg("w", 1), Duration.ZERO));
        jobs.add(NewJob.of("busy", new Msg("b", 1), Duration.ZERO));
        for (int i = 0; i < 40; i++) { // more than 16: the seq's last hex digit wraps twice
            jobs.add(NewJob.at("new-" + i, new Msg("n", i), at));
        }
        jobs.add(NewJob.of("new-3", new Msg("again", 3), Duration.ZERO)); // repeated within the batch

        List<EnqueueResult> results = q.enqueueAll(jobs);

        assertThat(results).hasSize(43);
        assertThat(results.get(0).duplicate()).isTrue();
        assertThat(results.get(0).dueAt()).isEqualTo(waiting.dueAt());
        assertThat(results.get(1).duplicate()).isTrue();
        assertThat(results.get(1).dueAt()).as("in flight: no due time").isNull();
        assertThat(results.subList(2, 42)).noneMatch(EnqueueResult::duplicate);
        assertThat(results.get(2).dueAt()).isEqualTo(at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        assertThat(results.get(42).duplicate()).isTrue();
        assertThat(results.get(42).dueAt()).isEqualTo(results.get(5).dueAt());
        assertThat(q.size(JobState.DUE)).isEqualTo(41);
        // equal due times come out in enqueue order (FIFO), the payload of the first "new-3" kept
        List<Job<Msg>> claimed = q.claim(100);
        assertThat(claimed)
                .extracting(Job::id)
                .containsExactlyElementsOf(
                        jobs.subList(2, 42).stream().map(NewJob::id).toList());
        assertThat(claimed.get(3).payload()).isEqualTo(new Msg("n", 3));
        assertThat(q.enqueue("waiting", new Msg("w", 2), Duration.ZERO).duplicate())
                .isTrue();
    }

    @Test
    void enqueueAll_skippedIdOnASixteenBoundary_nextNewJobsKeepTheirSequenceAndFifo(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        QueueKeys keys = QueueKeys.of("q");
        Instant at = serverNow(redis).minusSeconds(1);
        q.enqueueAll(List.of(NewJob.at("old", new Msg("o", 0), at))); // seq 1
        // the counter at 0x1e: the batch gets the seqs 0x1f, 0x20, 0x21, 0x22; 0x20 falls on "old", which exists
        redis.set(keys.seq(), "30".getBytes(StandardCharsets.UTF_8));
        List<EnqueueResult> first = q.enqueueAll(List.of(
                NewJob.at("a", new Msg("a", 0), at),
                NewJob.at("old", new Msg("o", 1), at),
                NewJob.at("c", new Msg("c", 0), at),
                NewJob.at("d", new Msg("d", 0), at)));
        assertThat(first).extracting(EnqueueResult::duplicate).containsExactly(false, true, false, false);
        // the same within one batch: 0x40 falls on the repeat of "e"
        redis.set(keys.seq(), "62".getBytes(StandardCharsets.UTF_8));
        q.enqueueAll(List.of(
                NewJob.at("e", new Msg("e", 0), at),
                NewJob.at("e", new Msg("e", 1), at),
                NewJob.at("f", new Msg("f", 0), at)));

        Map<String, String> expected = Map.of(
                "old", "000000000001",
                "a", "00000000001f",
                "c", "000000000021",
                "d", "000000000022",
                "e", "00000000003f",
                "f", "000000000041");
        expected.forEach((id, seq) -> {
            String envelope =
                    new String(redis.hget(keys.jobs(), id.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
            assertThat(envelope.substring(0, 12)).as("seq of %s", id).isEqualTo(seq);
        });
        // equal due times: enqueue order
        assertThat(q.claim(10)).extracting(Job::id).containsExactly("old", "a", "c", "d", "e", "f");
    }

    @Test
    void enqueue_publishesTheWakeNoticeOnlyWhenAJobBecomesTheEarliest(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        Instant base = serverNow(redis).plus(Duration.ofHours(1));
        long before = publishes(redis);
        q.schedule(new Msg("first", 0), base); // the queue was empty
        assertThat(publishes(redis) - before).isEqualTo(1);
        q.schedule(new Msg("later", 0), base.plusSeconds(60));
        q.schedule(new Msg("same time", 0), base); // not strictly earlier than the head
        assertThat(publishes(redis) - before).isEqualTo(1);
        q.schedule(new Msg("earlier", 0), base.minusSeconds(60));
        assertThat(publishes(redis) - before).isEqualTo(2);
        q.enqueueAll(List.of(
                NewJob.at(new Msg("b1", 0), base.plusSeconds(5)), NewJob.at(new Msg("b2", 0), base.plusSeconds(6))));
        assertThat(publishes(redis) - before).as("a batch of later jobs").isEqualTo(2);
        q.enqueueAll(List.of(
                NewJob.at(new Msg("b3", 0), base.plusSeconds(5)),
                NewJob.at(new Msg("b4", 0), base.minusSeconds(120)),
                NewJob.at(new Msg("b5", 0), base.minusSeconds(90))));
        assertThat(publishes(redis) - before).as("one notice per batch").isEqualTo(3);
    }

    private static long publishes(UnifiedJedis redis) {
        for (String line : redis.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_publish:")) {
                int at = line.indexOf("calls=") + "calls=".length();
                return Long.parseLong(line.substring(at, line.indexOf(',', at)));
            }
        }
        return 0;
    }

    @Test
    void ackAll_judgesEachJobOnItsOwn(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        for (int i = 0; i < 4; i++) {
            q.enqueue("j" + i, new Msg("m", i), Duration.ZERO);
        }
        List<Job<Msg>> jobs = q.claim(10);
        assertThat(jobs).hasSize(4);
        assertThat(q.cancel("j1")).isTrue(); // its receipt is now stale
        assertThat(q.ack(jobs.get(2))).isTrue(); // already acked

        List<Boolean> results = q.ackAll(List.of(jobs.get(0), jobs.get(1), jobs.get(2), jobs.get(3), jobs.get(0)));

        assertThat(results).containsExactly(true, false, false, true, false);
        assertThat(jobs).allMatch(Job::isSettled);
        assertThat(q.size(JobState.IN_FLIGHT) + q.size(JobState.DUE)).isZero();
        assertThat(q.ackAll(List.of())).isEmpty();
        assertThatThrownBy(() -> q.ackAll(java.util.Arrays.asList(jobs.get(0), null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("a job cannot be null");
    }

    @Test
    void ackAll_moreThanOneScriptCall_acksEveryJob(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
            payloads.add(new Msg("m", i));
        }
        q.enqueueAll(payloads, Duration.ZERO);
        List<Job<Msg>> jobs = new ArrayList<>(q.claim(1000));
        jobs.addAll(q.claim(1000));
        assertThat(jobs).hasSize(1200);

        assertThat(q.ackAll(jobs)).hasSize(1200).allMatch(acked -> acked);
        assertThat(q.size(JobState.IN_FLIGHT)).isZero();
    }

    @Test
    void claim_with100kDue_isBoundedPerCall(UnifiedJedis redis, RedisServer server) {
        DelayQueue<Msg> q = queue(redis);
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            payloads.add(new Msg("m", i));
        }
        q.enqueueAll(payloads, Duration.ZERO);
        assertThat(q.claim(100)).hasSize(100); // warm up: script cache, JIT
        try (var c = server.newConnection()) {
            c.configResetStat();
        }
        long t0 = System.nanoTime();
        List<Job<Msg>> jobs = q.claim(100);
        long micros = (System.nanoTime() - t0) / 1000;
        String stats = redis.info("commandstats");
        String evalsha = stats.substring(stats.indexOf("cmdstat_evalsha"));
        long serverMicros = Long.parseLong(
                evalsha.substring(evalsha.indexOf("usec=") + 5, evalsha.indexOf(',', evalsha.indexOf("usec="))));
        System.out.printf("claim(100) with 100000 due: %d us round trip, %d us in Redis%n", micros, serverMicros);
        assertThat(jobs).hasSize(100);
        assertThat(serverMicros).isLessThan(50_000);
        assertThat(q.size(JobState.DUE)).isEqualTo(99_800);
    }

    /**
     * The figure docs/benchmarks.md promises ({@code queue.memory.bytesPerJob}: at most 400 bytes per pending
     * job with a 100-byte payload), measured two ways: the exact {@code MEMORY USAGE} of the queue's keys
     * (every element counted), and the INFO {@code used_memory} delta the benchmark uses. Each must also be
     * above the payload's 100 bytes, so a batch that stored nothing (or not the payloads) cannot pass.
     */
    @Test
    void memory_perPendingJobWith100BytePayload_atMost400Bytes(UnifiedJedis redis) {
        DelayQueue<Msg> q = queue(redis);
        int n = 20_000;
        // The previous test's data may still be being freed in the background (Valkey 8 flushes lazily by
        // default): wait for that, or the delta would subtract it.
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> memoryField(redis, "lazyfree_pending_objects:", 0) == 0);
        long before = usedMemory(redis);
        List<Msg> payloads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            payloads.add(new Msg("x".repeat(79), 100_000 + i)); // {"text":"x..x","n":100000} = 100 bytes
        }
        q.enqueueAll(payloads, Duration.ofHours(1));
        long perJob = (usedMemory(redis) - before) / n;
        long keyBytes = 0;
        for (byte[] key : redis.keys("*".getBytes(StandardCharsets.UTF_8))) { // the test's server holds only q
            keyBytes += redis.memoryUsage(key, 0); // SAMPLES 0: every element
        }
        long keyBytesPerJob = keyBytes / n;
        System.out.printf(
                "memory: %d bytes per pending job with a 100-byte payload (used_memory delta), %d in the queue's"
                        + " keys (MEMORY USAGE)%n",
                perJob, keyBytesPerJob);
        assertThat(q.size(JobState.DUE)).isEqualTo(n);
        assertThat(keyBytesPerJob).isBetween(100L, 400L);
        assertThat(perJob).isBetween(100L, 400L);
    }

    private static long usedMemory(UnifiedJedis redis) {
        long used = memoryField(redis, "used_memory:", -1);
        if (used < 0) {
            throw new IllegalStateException("no used_memory in INFO");
        }
        return used;
    }

    /** A number from INFO memory, or {@code absent} when the server does not report that field. */
    private static long memoryField(UnifiedJedis redis, String prefix, long absent) {
        for (String line : redis.info("memory").split("\r\n")) {
            if (line.startsWith(prefix)) {
                return Long.parseLong(line.substring(prefix.length()));
            }
        }
        return absent;
    }
}
