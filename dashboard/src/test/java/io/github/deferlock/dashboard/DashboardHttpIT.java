package io.github.deferlock.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.QueueRateLimit;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.testing.RedisExtension;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

/** The JSON API over HTTP against a real redis-server: what it reads equals Redis, and who may act. */
@ExtendWith(RedisExtension.class)
final class DashboardHttpIT {

    @Test
    void queues_equalTheCountsInRedis(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode queues = d.getJson("api/queues").get("queues");

            assertThat(queues).hasSize(2);
            JsonNode orders = queues.get(1);
            assertThat(orders.get("name").asText()).isEqualTo(Workload.ORDERS);
            long waiting = w.orders.size(JobState.DUE);
            assertThat(orders.get("due").asLong() + orders.get("scheduled").asLong())
                    .isEqualTo(waiting)
                    .isEqualTo(6);
            assertThat(orders.get("scheduled").asLong()).isEqualTo(3);
            assertThat(orders.get("inFlight").asLong())
                    .isEqualTo(w.orders.size(JobState.IN_FLIGHT))
                    .isEqualTo(2);
            assertThat(orders.get("dead").asLong())
                    .isEqualTo(w.orders.size(JobState.DEAD))
                    .isEqualTo(4);
            assertThat(queues.get(0).get("name").asText()).isEqualTo(Workload.EMAILS);
            assertThat(queues.get(0).get("due").asLong()).isEqualTo(w.emails.size(JobState.DUE));
            assertThat(d.getJson("api/queues").get("lockPrefixes").get(0).asText())
                    .isEqualTo("lock:");
        }
    }

    @Test
    void queues_showTheRateLimitOfALimitedQueue(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            w.orders.rateLimit(QueueRateLimit.of(100, Duration.ofSeconds(1)));
            JsonNode queues = d.getJson("api/queues").get("queues");

            JsonNode limit = queues.get(1).get("rateLimit");
            assertThat(limit.get("rate").asInt()).isEqualTo(100);
            assertThat(limit.get("intervalMs").asLong()).isEqualTo(1000);
            assertThat(limit.get("burst").asInt()).isEqualTo(5);
            assertThat(limit.get("text").asText()).isEqualTo("100 per 1 s (burst 5)");
            assertThat(queues.get(0).get("rateLimit").isNull()).isTrue(); // emails has none
        }
    }

    /**
     * {@code held} is the queue's held count read with its stats; {@code heldKeys} the keys at their limit as the
     * background thread last read them ({@code Inspector.heldKeys}), and none once no job is held.
     */
    @Test
    void queues_showTheConcurrencyKeysHeldAtTheirLimit(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            Workload.KeyedQueue keyed = Workload.heldKeys(redis);
            DelayQueue<String> tenants = keyed.queue();

            JsonNode row = await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> queue(d, Workload.TENANTS),
                            q -> q.get("heldKeys").size() == 2);
            assertThat(row.get("held").asLong())
                    .isEqualTo(tenants.stats().held())
                    .isEqualTo(4);
            assertThat(row.get("heldKeys"))
                    .isEqualTo(d.parse("[{\"key\": \"tenant-a\", \"held\": 3, \"running\": 1, \"limit\": 1},"
                            + " {\"key\": \"tenant-b\", \"held\": 1, \"running\": 2, \"limit\": 2}]"));
            assertThat(row.get("heldKeysAt").asLong()).isPositive();
            JsonNode orders = queue(d, Workload.ORDERS);
            assertThat(orders.get("held").asLong())
                    .isEqualTo(w.orders.stats().held())
                    .isZero();
            assertThat(orders.get("heldKeys")).isEmpty();
            assertThat(orders.get("heldKeysAt").isNull()).isTrue();

            assertThat(tenants.ack(keyed.claimed().get(0))).isTrue(); // a2 back to due
            await().atMost(Duration.ofSeconds(30)).until(() -> queue(d, Workload.TENANTS)
                    .get("heldKeys")
                    .get(0)
                    .equals(d.parse("{\"key\": \"tenant-a\", \"held\": 2, \"running\": 0, \"limit\": 1}")));
            tenants.cancel("a3");
            tenants.cancel("a4");
            tenants.cancel("b3");
            JsonNode none = queue(d, Workload.TENANTS);
            assertThat(none.get("held").asLong()).isZero();
            assertThat(none.get("heldKeys"))
                    .as("no held job: no key, whatever was read before")
                    .isEmpty();
            assertThat(none.get("heldKeysAt").isNull()).isTrue();
        }
    }

    private static JsonNode queue(RunningDashboard d, String name) {
        for (JsonNode q : d.getJson("api/queues").get("queues")) {
            if (q.get("name").asText().equals(name)) {
                return q;
            }
        }
        throw new AssertionError("no queue " + name + " in api/queues");
    }

    @Test
    void rates_areTheQueuesCounters_overTheSamplingInterval(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            String history = "api/history?queue=" + Workload.ORDERS;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> d.getJson(history).get("samples").size() >= 1);
            QueueStats before = w.orders.stats();
            // after the first sample: 25 enqueued (one id twice: stored once), 7 acked, 2 dead-lettered
            for (int i = 0; i < 24; i++) {
                w.orders.enqueue("rate-" + i, "x", Duration.ZERO);
            }
            w.orders.enqueue("rate-0", "again", Duration.ZERO);
            w.orders.enqueue("rate-24", "x", Duration.ZERO);
            List<Job<String>> claimed = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                claimed.addAll(w.orders.claim(9 - claimed.size()));
                return claimed.size() == 9;
            });
            assertThat(w.orders.ackAll(claimed.subList(0, 7))).containsOnly(true);
            assertThat(w.orders.deadLetter(claimed.get(7), "no")).isTrue();
            assertThat(w.orders.deadLetter(claimed.get(8), "no")).isTrue();
            QueueStats after = w.orders.stats();
            assertThat(after.enqueued() - before.enqueued()).isEqualTo(25);
            assertThat(after.acked() + after.deadLettered() - before.acked() - before.deadLettered())
                    .isEqualTo(9);

            // the rates, integrated over the samples' intervals, add up to exactly what happened
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode samples = d.getJson(history).get("samples");
                double enqueued = 0;
                double handled = 0;
                for (int i = 1; i < samples.size(); i++) {
                    double seconds = (samples.get(i).get("t").asLong()
                                    - samples.get(i - 1).get("t").asLong())
                            / 1000.0;
                    enqueued += samples.get(i).get("enqueuedPerSec").asDouble() * seconds;
                    handled += samples.get(i).get("handledPerSec").asDouble() * seconds;
                }
                assertThat(enqueued).isCloseTo(25, within(1e-6));
                assertThat(handled).isCloseTo(9, within(1e-6));
            });
            JsonNode orders = d.getJson("api/queues").get("queues").get(1);
            assertThat(orders.get("name").asText()).isEqualTo(Workload.ORDERS);
            assertThat(orders.get("enqueuedPerSec").isNumber()).isTrue();
        }
    }

    @Test
    void schedules_showNextFire_orTheJobAFixedDelayWaitsFor(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                Workload.WaitingSchedule waiting = Workload.waitingSchedule(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode list = d.getJson("api/schedules?queue=" + Workload.REPORTS);
            assertThat(list.get("queue").asText()).isEqualTo(Workload.REPORTS);
            JsonNode cleanup = list.get("schedules").get(0);
            assertThat(cleanup.get("id").asText()).isEqualTo("cleanup");
            assertThat(cleanup.get("spec").asText()).isEqualTo("delay:PT2S");
            assertThat(cleanup.get("nextFire").isNull()).isTrue();
            assertThat(cleanup.get("waitingFor").asText())
                    .isEqualTo(waiting.job())
                    .startsWith("cleanup@");
            assertThat(cleanup.get("delayMs").asLong()).isEqualTo(2000);
            JsonNode ping = list.get("schedules").get(1);
            assertThat(ping.get("id").asText()).isEqualTo("ping");
            assertThat(ping.get("spec").asText()).isEqualTo("rate:PT5M");
            assertThat(ping.get("nextFire").asLong())
                    .isEqualTo(waiting.queue()
                            .schedules()
                            .get("ping")
                            .orElseThrow()
                            .nextFire()
                            .orElseThrow()
                            .toEpochMilli());
            assertThat(ping.get("waitingFor").isNull()).isTrue();
            assertThat(ping.get("delayMs").isNull()).isTrue();
            assertThat(w.orders.schedules().list()).isEmpty();
            assertThat(d.getJson("api/schedules?queue=" + Workload.ORDERS).get("schedules"))
                    .isEmpty();
        }
    }

    @Test
    void deadLetters_showTheStoredErrorAndPayloadAsText(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode page = d.getJson("api/dead?queue=orders&offset=0&limit=3");

            assertThat(page.get("total").asLong()).isEqualTo(4);
            assertThat(page.get("items")).hasSize(3);
            List<DeadLetter> stored = w.orders.deadLetters().list(10);
            for (int i = 0; i < 3; i++) {
                JsonNode item = page.get("items").get(i);
                assertThat(item.get("id").asText()).isEqualTo(stored.get(i).id());
                assertThat(item.get("error").asText()).isEqualTo(stored.get(i).reason());
                assertThat(item.get("attempts").asInt()).isEqualTo(stored.get(i).attempts());
            }
            JsonNode first = page.get("items").get(0);
            assertThat(first.get("payload").asText()).isEqualTo(stored.get(0).payloadJson());
            assertThat(first.get("payload").asText()).contains("<script>");
            assertThat(d.getJson("api/dead?queue=orders&offset=3&limit=3").get("items"))
                    .extracting(n -> n.get("id").asText())
                    .containsExactly(stored.get(3).id());

            HttpResponse<String> raw = d.get("api/dead?queue=orders");
            assertThat(raw.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            assertThat(raw.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        }
    }

    @Test
    void job_showsStateAttemptsAndPayload(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode job = d.getJson("api/job?queue=orders&id=" + w.scheduledId);

            assertThat(job.get("state").asText()).isEqualTo("DUE");
            assertThat(job.get("attempts").asInt()).isZero();
            assertThat(job.get("dueAt").asLong())
                    .isEqualTo(w.orders
                            .get(w.scheduledId)
                            .orElseThrow()
                            .dueAt()
                            .orElseThrow()
                            .toEpochMilli());
            assertThat(job.get("payload").asText()).isEqualTo("\"later 2\"");
            assertThat(job.get("priority").asInt()).isZero();
            assertThat(job.get("progress").isNull()).isTrue();

            HttpResponse<String> missing = d.get("api/job?queue=orders&id=no-such-job");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(d.parse(missing.body()).get("notFound").asBoolean()).isTrue();
        }
    }

    @Test
    void locks_showHolderLeaseAndFencing(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode first = d.getJson("api/locks?prefix=lock:"); // starts the walk; the reply may precede it
            JsonNode locks = await().atMost(Duration.ofSeconds(30))
                    .until(() -> d.getJson("api/locks?prefix=lock:"), p -> p.get("complete")
                            .asBoolean())
                    .get("locks");

            assertThat(first.get("prefix").asText()).isEqualTo("lock:");
            assertThat(locks).hasSize(1);
            JsonNode lock = locks.get(0);
            assertThat(lock.get("name").asText()).isEqualTo(Workload.LOCK);
            String stored = redis.get(w.locks.get(Workload.LOCK).key());
            assertThat(stored).startsWith(lock.get("holderToken").asText());
            assertThat(lock.get("remainingLeaseMs").asLong()).isBetween(1L, 300_000L);
            assertThat(lock.get("fencingToken").asLong()).isGreaterThanOrEqualTo(w.lease.fencingToken());
            assertThat(lock.get("waiting").asBoolean()).isFalse();
            assertThat(lock.get("parked").asLong()).isZero();
            assertThat(lock.get("oldestParkedAgeMs").isNull()).isTrue();
        }
    }

    @Test
    void pauseAndResume_needCredentials_showInQueues_andAreAudited(UnifiedJedis redis) throws Exception {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            String body = "{\"queue\":\"orders\"}";
            String csrf = d.csrf();
            HttpResponse<String> anonymous =
                    d.post("api/actions/pause", body, "X-CSRF-Token", csrf, "Content-Type", "application/json");
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(w.orders.isPaused()).isFalse();

            String[] auth = {
                "Authorization",
                "Bearer " + RunningDashboard.TOKEN,
                "X-CSRF-Token",
                csrf,
                "Content-Type",
                "application/json"
            };
            HttpResponse<String> paused = d.post("api/actions/pause", body, auth);
            assertThat(paused.statusCode()).isEqualTo(200);
            assertThat(paused.body()).contains("\"changed\":true");
            assertThat(w.orders.isPaused()).isTrue();
            assertThat(d.post("api/actions/pause", body, auth).body()).contains("\"changed\":false");
            JsonNode orders = null;
            for (JsonNode q : d.getJson("api/queues").get("queues")) {
                if (q.get("name").asText().equals("orders")) {
                    orders = q;
                }
            }
            assertThat(orders.get("paused").asBoolean()).isTrue();
            assertThat(orders.get("pausedSince").asLong()).isPositive();
            assertThat(d.post("api/actions/resume", body, auth).statusCode()).isEqualTo(200);
            assertThat(w.orders.isPaused()).isFalse();

            assertThat(d.audit.get(0).action() + " " + d.audit.get(0).queue()).isEqualTo("pause orders");
            assertThat(d.audit.get(0).outcome()).startsWith("refused: ");
            assertThat(d.audit.subList(1, d.audit.size()))
                    .extracting(r -> r.action() + " " + r.actor() + " " + r.queue() + " " + r.outcome())
                    .containsExactly(
                            "pause token orders paused",
                            "pause token orders already paused",
                            "resume token orders resumed");
        }
    }

    @Test
    void actions_withoutCredentialsOrCsrfToken_areRefusedAndChangeNothing(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            String body = "{\"queue\":\"orders\",\"ids\":[\"dead-1\"]}";
            String csrf = d.csrf();

            HttpResponse<String> anonymous =
                    d.post("api/actions/requeue", body, "X-CSRF-Token", csrf, "Content-Type", "application/json");
            HttpResponse<String> wrongToken = d.post(
                    "api/actions/requeue",
                    body,
                    "Authorization",
                    "Bearer wrong-token-0123456789",
                    "X-CSRF-Token",
                    csrf,
                    "Content-Type",
                    "application/json");
            HttpResponse<String> noCsrf = d.post(
                    "api/actions/requeue",
                    body,
                    "Authorization",
                    "Bearer " + RunningDashboard.TOKEN,
                    "Content-Type",
                    "application/json");
            HttpResponse<String> wrongCsrf = d.post(
                    "api/actions/requeue",
                    body,
                    "Authorization",
                    "Bearer " + RunningDashboard.TOKEN,
                    "X-CSRF-Token",
                    csrf + "x",
                    "Content-Type",
                    "application/json");
            HttpResponse<String> form = d.post(
                    "api/actions/requeue",
                    "queue=orders&ids=dead-1",
                    "Authorization",
                    "Bearer " + RunningDashboard.TOKEN,
                    "X-CSRF-Token",
                    csrf,
                    "Content-Type",
                    "application/x-www-form-urlencoded");
            HttpResponse<String> crossOrigin = d.post(
                    "api/actions/requeue",
                    body,
                    "Authorization",
                    "Bearer " + RunningDashboard.TOKEN,
                    "X-CSRF-Token",
                    csrf,
                    "Content-Type",
                    "application/json",
                    "Origin",
                    "https://evil.example");
            RunningDashboard other =
                    new RunningDashboard(redis, b -> b.actions(ActionAuth.token(RunningDashboard.TOKEN)));
            HttpResponse<String> otherSession;
            try (other) {
                // a CSRF token is bound to the session it was issued to
                otherSession = other.post(
                        "api/actions/requeue",
                        body,
                        "Authorization",
                        "Bearer " + RunningDashboard.TOKEN,
                        "X-CSRF-Token",
                        csrf,
                        "Content-Type",
                        "application/json");
            }

            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
            assertThat(wrongToken.statusCode()).isEqualTo(401);
            assertThat(noCsrf.statusCode()).isEqualTo(403);
            assertThat(d.parse(noCsrf.body()).get("error").asText()).contains("CSRF");
            assertThat(wrongCsrf.statusCode()).isEqualTo(403);
            assertThat(form.statusCode()).isEqualTo(415);
            assertThat(crossOrigin.statusCode()).isEqualTo(403);
            assertThat(otherSession.statusCode()).isEqualTo(403);
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(4);
            assertThat(w.orders.get("dead-1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(d.audit).hasSize(6).allSatisfy(r -> {
                assertThat(r.outcome()).startsWith("refused: ");
                assertThat(r.action()).isEqualTo("requeue");
            });
            // docs/dashboard.md: a refused action is logged with the queue and ids it named (JSON bodies)
            assertThat(d.audit)
                    .filteredOn(r -> !r.outcome().contains("JSON body"))
                    .hasSize(5)
                    .allSatisfy(r -> {
                        assertThat(r.queue()).isEqualTo("orders");
                        assertThat(r.ids()).containsExactly("dead-1");
                    });
            assertThat(d.audit)
                    .filteredOn(r -> r.outcome().contains("JSON body"))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.queue()).isEmpty();
                        assertThat(r.ids()).isEmpty();
                    });
        }
    }

    @Test
    void readOnlyDashboard_refusesEveryAction(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            JsonNode session = d.getJson("api/session");
            HttpResponse<String> requeue = d.post(
                    "api/actions/requeue",
                    "{\"queue\":\"orders\",\"ids\":[\"dead-1\"]}",
                    "Authorization",
                    "Bearer " + RunningDashboard.TOKEN,
                    "Content-Type",
                    "application/json");

            HttpResponse<String> withProxyCredentials = d.get(
                    "api/session",
                    "Authorization",
                    "Basic " + java.util.Base64.getEncoder().encodeToString("proxy:user".getBytes()));
            assertThat(withProxyCredentials.statusCode()).isEqualTo(200);
            assertThat(session.get("actions").asBoolean()).isFalse();
            assertThat(session.get("csrf").isNull()).isTrue();
            assertThat(requeue.statusCode()).isEqualTo(403);
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(4);
        }
    }

    @Test
    void requeueAndPurge_touchOnlyTheGivenIds_andAreAudited(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            HttpResponse<String> requeue =
                    d.act("requeue", "{\"queue\":\"orders\",\"ids\":[\"dead-1\",\"dead-3\",\"not-there\"]}");
            HttpResponse<String> purge = d.act("purge", "{\"queue\":\"orders\",\"ids\":[\"dead-2\"]}");

            assertThat(requeue.statusCode()).isEqualTo(200);
            JsonNode result = d.parse(requeue.body());
            assertThat(result.get("done")).extracting(JsonNode::asText).containsExactly("dead-1", "dead-3");
            assertThat(result.get("missing")).extracting(JsonNode::asText).containsExactly("not-there");
            assertThat(purge.statusCode()).isEqualTo(200);
            assertThat(w.orders.get("dead-1").orElseThrow().state()).isEqualTo(JobState.DUE);
            assertThat(w.orders.get("dead-3").orElseThrow().state()).isEqualTo(JobState.DUE);
            assertThat(w.orders.get("dead-2")).isEmpty();
            assertThat(w.orders.get("dead-4").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(1);
            assertThat(d.audit).hasSize(2);
            ActionRecord first = d.audit.get(0);
            assertThat(first.actor()).isEqualTo("token");
            assertThat(first.action()).isEqualTo("requeue");
            assertThat(first.queue()).isEqualTo("orders");
            assertThat(first.ids()).containsExactly("dead-1", "dead-3", "not-there");
            assertThat(first.remoteAddress()).isEqualTo("127.0.0.1");
            assertThat(d.audit.get(1).ids()).containsExactly("dead-2");
        }
    }

    @Test
    void requeueAll_needsTheCurrentCount(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            HttpResponse<String> stale = d.act("requeue-all", "{\"queue\":\"orders\",\"count\":3}");
            HttpResponse<String> noCount = d.act("requeue-all", "{\"queue\":\"orders\"}");
            long deadBefore = w.orders.size(JobState.DEAD);
            HttpResponse<String> confirmed = d.act("requeue-all", "{\"queue\":\"orders\",\"count\":4}");

            assertThat(stale.statusCode()).isEqualTo(409);
            assertThat(d.parse(stale.body()).get("error").asText()).contains("4 dead letters");
            assertThat(noCount.statusCode()).isEqualTo(400);
            assertThat(deadBefore).isEqualTo(4);
            assertThat(confirmed.statusCode()).isEqualTo(200);
            assertThat(d.parse(confirmed.body()).get("requeued").asLong()).isEqualTo(4);
            assertThat(w.orders.size(JobState.DEAD)).isZero();
        }
    }

    @Test
    void cancel_deletesTheJob(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            HttpResponse<String> cancel = d.act("cancel", "{\"queue\":\"orders\",\"id\":\"" + w.scheduledId + "\"}");
            HttpResponse<String> again = d.act("cancel", "{\"queue\":\"orders\",\"id\":\"" + w.scheduledId + "\"}");

            assertThat(d.parse(cancel.body()).get("cancelled").asBoolean()).isTrue();
            assertThat(d.parse(again.body()).get("cancelled").asBoolean()).isFalse();
            assertThat(w.orders.get(w.scheduledId)).isEmpty();
        }
    }

    @Test
    void basicAuth_namesTheUserInTheAudit(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d =
                        new RunningDashboard(redis, b -> b.actions(ActionAuth.basic("alice", "correct horse")))) {
            String basic = "Basic " + java.util.Base64.getEncoder().encodeToString("alice:correct horse".getBytes());
            JsonNode session =
                    d.parse(d.get("api/session", "Authorization", basic).body());
            HttpResponse<String> wrong = d.get(
                    "api/session",
                    "Authorization",
                    "Basic " + java.util.Base64.getEncoder().encodeToString("alice:wrong password".getBytes()));
            HttpResponse<String> purge = d.post(
                    "api/actions/purge",
                    "{\"queue\":\"orders\",\"ids\":[\"dead-4\"]}",
                    "Authorization",
                    basic,
                    "X-CSRF-Token",
                    session.get("csrf").asText(),
                    "Content-Type",
                    "application/json");

            HttpResponse<String> wrongPurge = d.post(
                    "api/actions/purge",
                    "{\"queue\":\"orders\",\"ids\":[\"dead-3\"]}",
                    "Authorization",
                    "Basic " + java.util.Base64.getEncoder().encodeToString("alice:wrong password".getBytes()),
                    "X-CSRF-Token",
                    session.get("csrf").asText(),
                    "Content-Type",
                    "application/json");

            assertThat(wrongPurge.statusCode()).as(wrongPurge.body()).isEqualTo(401);
            assertThat(d.parse(wrongPurge.body()).get("error").asText()).isEqualTo("wrong credentials");
            // no Basic challenge: the browser would prompt and then send the password on its own
            assertThat(wrongPurge.headers().firstValue("WWW-Authenticate")).isEmpty();
            assertThat(w.orders.get("dead-3").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(session.get("user").asText()).isEqualTo("alice");
            assertThat(session.get("auth").asText()).isEqualTo("basic");
            // the page asks api/session who is signed in: other credentials (a proxy's) must not break it
            assertThat(wrong.statusCode()).isEqualTo(200);
            assertThat(d.parse(wrong.body()).get("user").isNull()).isTrue();
            assertThat(purge.statusCode()).isEqualTo(200);
            assertThat(w.orders.get("dead-4")).isEmpty();
            assertThat(d.audit).hasSize(2);
            assertThat(d.audit.get(0).actor()).isEqualTo("alice");
            assertThat(d.audit.get(1).actor()).isEqualTo("anonymous");
            assertThat(d.audit.get(1).outcome()).isEqualTo("refused: wrong credentials");
        }
    }

    @Test
    void badRequests_areJsonErrors(UnifiedJedis redis) {
        try (Workload w = Workload.write(redis);
                RunningDashboard d = RunningDashboard.withActions(redis)) {
            List<HttpResponse<String>> responses = new ArrayList<>();
            responses.add(d.get("api/dead"));
            responses.add(d.get("api/dead?queue=orders&limit=0"));
            responses.add(d.get("api/dead?queue=a%7Bb"));
            responses.add(d.get("api/conflicts?minutes=16"));
            responses.add(d.get("api/conflicts?minutes=0"));
            responses.add(d.get("api/conflicts?top=51"));
            responses.add(d.get("api/conflicts?prefix=a%7Bb"));
            responses.add(d.act("requeue", "{\"queue\":\"orders\",\"ids\":[]}"));
            responses.add(d.act("requeue", "not json"));

            assertThat(responses).allSatisfy(r -> {
                assertThat(r.statusCode()).isEqualTo(400);
                assertThat(d.parse(r.body()).get("error").asText()).isNotEmpty();
            });
            assertThat(d.get("api/nothing").statusCode()).isEqualTo(404);
            assertThat(d.audit)
                    .extracting(ActionRecord::outcome)
                    .satisfiesExactly(
                            o -> assertThat(o)
                                    .isEqualTo("refused: ids must be a non-empty array of job ids (select dead"
                                            + " letters first)"),
                            o -> assertThat(o).startsWith("refused: the body is not JSON: "));
            assertThat(w.orders.size(JobState.DEAD)).isEqualTo(4);
        }
    }

    @Test
    void page_isServedWithItsChartLibraryAndAStrictPolicy(UnifiedJedis redis) {
        try (RunningDashboard d = new RunningDashboard(redis, b -> b)) {
            HttpResponse<String> page = d.get("");
            HttpResponse<String> uplot = d.get("static/uPlot.iife.min.js");

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("static/uPlot.iife.min.js").doesNotContain("//cdn");
            assertThat(page.headers().firstValue("Content-Security-Policy"))
                    .hasValueSatisfying(p -> assertThat(p).contains("default-src 'self'"));
            assertThat(uplot.statusCode()).isEqualTo(200);
            assertThat(uplot.body()).contains("uPlot");
        }
    }
}
