package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.internal.QueueKeys;
import io.github.deferlock.delay.internal.QueueTransport;
import io.github.deferlock.delay.internal.ScheduleScripts;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.UnifiedJedis;

@ExtendWith(RedisExtension.class)
final class SchedulesIT {
    private static final ScheduleSpec HOURLY = ScheduleSpec.fixedRate(Duration.ofHours(1));

    @Test
    void upsert_sameSpec_keepsNextSlot_otherSpec_startsAfterNow_andSurvivesANewQueueObject(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s-upsert", Msg.class).build();
        ScheduleInfo first = q.schedules().upsert("r", HOURLY, new Msg("a", 1));
        Instant next = first.nextFire().orElseThrow();
        // pretend the next slot is an old one: a second upsert with the same spec (an app's restart) keeps it
        redis.zadd(key("s-upsert", "schedule-next"), next.minusSeconds(7200).toEpochMilli(), "r");
        ScheduleInfo again = q.schedules().upsert("r", HOURLY, new Msg("b", 2));
        assertThat(again.nextFire()).contains(next.minusSeconds(7200));
        // another spec starts from its first slot after now
        ScheduleInfo changed =
                q.schedules().upsert("r", ScheduleSpec.fixedRate(Duration.ofMinutes(30)), new Msg("c", 3));
        assertThat(changed.nextFire().orElseThrow()).isAfter(ServerTime.now(redis));
        assertThat(changed.spec()).isEqualTo("rate:PT30M");

        DelayQueue<Msg> fresh = DelayQueue.builder(redis, "s-upsert", Msg.class).build();
        assertThat(fresh.schedules().get("r")).contains(changed);
        assertThat(Schedules.list(redis, "s-upsert")).containsExactly(changed);
        assertThat(fresh.schedules().remove("r")).isTrue();
        assertThat(fresh.schedules().remove("r")).isFalse();
        assertThat(q.schedules().list()).isEmpty();
    }

    @Test
    void upsert_badInput_failsAtUpsert(UnifiedJedis redis) {
        DelayQueue<Object> q = DelayQueue.builder(redis, "s-bad", Object.class).build();
        assertThatThrownBy(() -> q.schedules().upsert("x", HOURLY, new Object()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.schedules().upsert("", HOURLY, "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schedule id");
        assertThatThrownBy(() -> q.schedules().upsert("y".repeat(201), HOURLY, "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("200");
        assertThat(q.schedules().list()).isEmpty();
    }

    @Test
    void worker_fireSchedulesFalse_firesNothing(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s-off", Msg.class).build();
        ScheduleInfo s = q.schedules().upsert("t", ScheduleSpec.fixedRate(Duration.ofSeconds(1)), new Msg("t", 0));
        try (DelayQueueWorker<Msg> w = DelayQueueWorker.builder(q, job -> {})
                .fireSchedules(false)
                .build()
                .start()) {
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> w.isRunning() && q.stats().enqueued() == 0);
        }
        assertThat(q.schedules().get("t").orElseThrow().nextFire()).isEqualTo(s.nextFire());
    }

    @Test
    void tick_unknownKind_leftAloneNotDropped(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s-kind", Msg.class).build();
        q.schedules().upsert("c", HOURLY, new Msg("a", 1));
        // as a process with another spec kind would write it
        String def = redis.hget(key("s-kind", "schedules"), "c");
        redis.hset(key("s-kind", "schedules"), "c", def.replace("rate:PT1H", "martian:every sol"));
        long due = ServerTime.now(redis).toEpochMilli() - 1000;
        redis.zadd(key("s-kind", "schedule-next"), due, "c");
        q.schedules().tick();
        q.schedules().tick();
        ScheduleInfo info = q.schedules().get("c").orElseThrow();
        assertThat(info.spec()).isEqualTo("martian:every sol");
        assertThat(info.nextFire()).contains(Instant.ofEpochMilli(due));
        assertThat(q.size(JobState.DUE)).isZero();
    }

    @Test
    void tick_missedSlots_followThePolicy(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s-missed", Msg.class).build();
        q.schedules().upsert("once", HOURLY, new Msg("once", 0), MissedSlots.fireOnce());
        q.schedules().upsert("all", HOURLY, new Msg("all", 0), MissedSlots.fireAll(2));
        q.schedules().upsert("skip", HOURLY, new Msg("skip", 0), MissedSlots.skip());
        Instant now = ServerTime.now(redis);
        long hour = 3_600_000;
        long fiveAgo = (now.toEpochMilli() / hour - 5) * hour; // five whole hours ago: 5 or 6 slots missed
        for (String id : List.of("once", "all", "skip")) {
            redis.zadd(key("s-missed", "schedule-next"), fiveAgo, id); // as if every worker was down 5 hours
        }
        q.schedules().tick();
        List<String> ids = new ArrayList<>();
        for (Job<Msg> j : q.claim(100)) {
            ids.add(j.id());
        }
        Instant lastSlot = Instant.ofEpochMilli(now.toEpochMilli() / hour * hour);
        boolean lastIsLate = Duration.between(lastSlot, now).compareTo(MissedSlots.GRACE) <= 0;
        Set<String> expected = new HashSet<>();
        // fire once: the last missed slot
        expected.add("once@" + (lastIsLate ? lastSlot.minusMillis(hour) : lastSlot));
        // fire all (at most 2): the earliest two
        expected.add("all@" + Instant.ofEpochMilli(fiveAgo));
        expected.add("all@" + Instant.ofEpochMilli(fiveAgo + hour));
        if (lastIsLate) { // a slot found within the grace is only late: it fires whatever the policy
            expected.add("once@" + lastSlot);
            expected.add("all@" + lastSlot);
            expected.add("skip@" + lastSlot);
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(expected);
        for (String id : List.of("once", "all", "skip")) {
            assertThat(q.schedules().get(id).orElseThrow().nextFire()).contains(lastSlot.plusMillis(hour));
        }
    }

    @Test
    void fire_stalePlanOfASlotFiredAndAckedElsewhere_writesNothing(UnifiedJedis redis) {
        DelayQueue<Msg> q = DelayQueue.builder(redis, "s-stale", Msg.class).build();
        q.schedules().upsert("t", HOURLY, new Msg("t", 0));
        long slot = (ServerTime.now(redis).toEpochMilli() / 3_600_000) * 3_600_000;
        redis.zadd(key("s-stale", "schedule-next"), slot, "t");
        String def = redis.hget(key("s-stale", "schedules"), "t");
        ScheduleScripts scripts =
                new ScheduleScripts(new QueueTransport(redis, "s-stale", 0, null), QueueKeys.of("s-stale"), "s-stale");
        List<String> ids = List.of(Schedules.jobId("t", slot));
        byte[] tail = "{\"text\":\"t\",\"n\":0}".getBytes(StandardCharsets.UTF_8);
        // process A fires the slot, its job is handled and acked (its id is free again)
        assertThat(scripts.fire("t", slot, Schedules.sha1(def), slot + 3_600_000, tail, ids, List.of(slot))
                        .status())
                .isEqualTo(1);
        assertThat(q.ack(q.claim(1).get(0))).isTrue();
        // process B, which read the schedule before A fired, sends its plan for the same slot
        ScheduleScripts.Fired late =
                scripts.fire("t", slot, Schedules.sha1(def), slot + 3_600_000, tail, ids, List.of(slot));
        assertThat(late.status()).isZero();
        assertThat(late.written()).isZero();
        assertThat(q.size(JobState.DUE)).isZero();
        assertThat(q.stats().enqueued()).isEqualTo(1);
        // and a plan made from a definition that was updated since is refused too
        redis.zadd(key("s-stale", "schedule-next"), slot, "t");
        assertThat(scripts.fire("t", slot, Schedules.sha1(def + " "), slot + 1, tail, ids, List.of(slot))
                        .status())
                .isZero();
    }

    @Test
    void sigkill_ofAFiringProcess_losesNoSlot(RedisServer server, UnifiedJedis redis) {
        String name = "s-kill";
        String log = "s-kill-log";
        DelayQueue<Msg> q = DelayQueue.builder(redis, name, Msg.class)
                .visibilityTimeout(Duration.ofSeconds(2))
                .build();
        q.schedules().upsert("tick", ScheduleSpec.fixedRate(Duration.ofSeconds(1)), new Msg("t", 0));
        Set<String> here = ConcurrentHashMap.newKeySet();
        try (JvmProcess a = JvmProcess.start(
                        ScheduleFiringMain.class, server.host(), String.valueOf(server.port()), name, log);
                DelayQueueWorker<Msg> b = DelayQueueWorker.builder(q, job -> here.add(job.id()))
                        .build()
                        .start()) {
            a.awaitLine("READY", Duration.ofSeconds(60));
            assertThat(b.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.llen(log) >= 2);
            a.kill();
            int before = here.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> here.size() >= before + 3);
            assertThat(q.schedules().remove("tick")).isTrue();
            // the killed process's claimed jobs come back after the visibility timeout
            await().atMost(Duration.ofSeconds(30)).until(() -> q.size(JobState.DUE) + q.size(JobState.IN_FLIGHT) == 0);
        }
        Set<String> all = new HashSet<>(here);
        all.addAll(redis.lrange(log, 0, -1));
        assertThat(q.stats().enqueued()).as("one job per slot").isEqualTo(all.size());
        TreeSet<Instant> slots = new TreeSet<>();
        for (String id : all) {
            slots.add(Instant.parse(id.substring("tick@".length())));
        }
        long span = Duration.between(slots.first(), slots.last()).toSeconds();
        assertThat(slots).as("consecutive seconds across the kill").hasSize((int) span + 1);
    }

    @Test
    void fixedDelay_waitsForItsJob_listedAsWaiting_upsertKeepsTheWait_finishedJobStartsTheDelay(UnifiedJedis redis) {
        String name = "s-fd";
        DelayQueue<Msg> q = DelayQueue.builder(redis, name, Msg.class).build();
        Instant before = ServerTime.now(redis);
        ScheduleInfo created =
                q.schedules().upsert("fd", ScheduleSpec.fixedDelay(Duration.ofSeconds(1)), new Msg("f", 0));
        assertThat(created.spec()).isEqualTo("delay:PT1S");
        assertThat(created.waitingFor()).isEmpty();
        assertThat(created.nextFire().orElseThrow())
                .as("ms precision: the server time in ms")
                .isAfterOrEqualTo(
                        before.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).plusSeconds(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            q.schedules().tick();
            return q.size(JobState.DUE) > 0;
        });
        String fired = "fd@" + created.nextFire().orElseThrow();
        ScheduleInfo waiting = q.schedules().get("fd").orElseThrow();
        assertThat(waiting.waitingFor()).contains(fired);
        assertThat(waiting.nextFire()).isEmpty();
        assertThat(q.schedules().list()).containsExactly(waiting);
        // pending, then running: however often the ticker looks, nothing more fires
        Job<Msg> job = q.claim(1).get(0);
        assertThat(job.id()).isEqualTo(fired);
        await().pollDelay(Duration.ofMillis(2500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    q.schedules().tick();
                    return true;
                });
        assertThat(q.stats().enqueued()).isEqualTo(1);
        // an upsert with the same spec, then with another delay, keeps waiting for the same job
        assertThat(q.schedules().upsert("fd", ScheduleSpec.fixedDelay(Duration.ofSeconds(1)), new Msg("f", 0)))
                .isEqualTo(waiting);
        ScheduleInfo longer =
                q.schedules().upsert("fd", ScheduleSpec.fixedDelay(Duration.ofSeconds(3)), new Msg("f", 1));
        assertThat(longer.waitingFor()).contains(fired);
        assertThat(q.ack(job)).isTrue();
        Instant acked = ServerTime.now(redis);
        q.schedules().tick(); // the look due: sees the job gone
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            q.schedules().tick();
            return q.schedules().get("fd").orElseThrow().waitingFor().isEmpty();
        });
        Instant next = q.schedules().get("fd").orElseThrow().nextFire().orElseThrow();
        assertThat(next).isAfterOrEqualTo(acked.plusSeconds(3)); // the new delay, from the end of the job
        assertThat(next)
                .isBefore(acked.plusSeconds(3).plus(Schedules.FIXED_DELAY_CHECK).plusSeconds(2));
        // a dead-lettered job is finished too
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            q.schedules().tick();
            return q.size(JobState.DUE) > 0;
        });
        Job<Msg> second = q.claim(1).get(0);
        assertThat(second.id()).isEqualTo("fd@" + next);
        assertThat(second.payload()).isEqualTo(new Msg("f", 1));
        assertThat(q.deadLetter(second, "test")).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            q.schedules().tick();
            return q.schedules().get("fd").orElseThrow().waitingFor().isEmpty();
        });
        // to a fixed rate while waiting: the wait ends; remove leaves no key behind
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            q.schedules().tick();
            return q.size(JobState.DUE) > 0;
        });
        assertThat(q.schedules().get("fd").orElseThrow().waitingFor()).isPresent();
        ScheduleInfo rate = q.schedules().upsert("fd", HOURLY, new Msg("f", 2));
        assertThat(rate.waitingFor()).isEmpty();
        assertThat(rate.nextFire()).isPresent();
        assertThat(redis.exists(key(name, "schedule-running"))).isFalse();
        q.schedules().upsert("fd", ScheduleSpec.fixedDelay(Duration.ofSeconds(1)), new Msg("f", 3));
        assertThat(q.schedules().remove("fd")).isTrue();
        assertThat(redis.exists(key(name, "schedule-next"))).isFalse();
        assertThat(redis.exists(key(name, "schedules"))).isFalse();
    }

    @Test
    void fixedDelay_sigkillOfTheRunningProcess_jobRedelivered_nextFireOnlyAfterItFinishes(
            RedisServer server, UnifiedJedis redis) {
        String name = "s-fd-kill";
        String log = "s-fd-kill-log";
        DelayQueue<Msg> q = DelayQueue.builder(redis, name, Msg.class)
                .visibilityTimeout(Duration.ofSeconds(2))
                .build();
        q.schedules().upsert("fd", ScheduleSpec.fixedDelay(Duration.ofSeconds(1)), new Msg("t", 0));
        String first;
        try (JvmProcess a = JvmProcess.start(
                ScheduleFiringMain.class, server.host(), String.valueOf(server.port()), name, log, "block")) {
            a.awaitLine("READY", Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.llen(log) >= 1);
            first = redis.lindex(log, 0);
            a.kill(); // SIGKILL while its handler runs the fire's job
        }
        List<String> ids = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Instant[]> runs = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (DelayQueueWorker<Msg> b = DelayQueueWorker.builder(q, job -> {
                    Instant start = ServerTime.now(redis);
                    ids.add(job.id());
                    runs.add(new Instant[] {start, ServerTime.now(redis)});
                })
                .build()
                .start()) {
            assertThat(b.isRunning()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> ids.size() >= 2);
            assertThat(q.schedules().remove("fd")).isTrue();
        }
        assertThat(ids.get(0)).as("the killed run, redelivered").isEqualTo(first);
        assertThat(Duration.between(runs.get(0)[1], runs.get(1)[0]))
                .as("the next fire starts the delay after the redelivered run finished")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(q.stats().enqueued())
                .as("nothing fired while the killed run was pending")
                .isEqualTo(ids.size());
    }

    private static String key(String queue, String suffix) {
        return QueueKeys.prefix(queue) + suffix;
    }
}
