package io.github.deferlock.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.delay.QueueStats;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/** The read model and actions against a real redis-server with a known workload (issue 17). */
@ExtendWith(RedisExtension.class)
final class InspectorIT {

    record Msg(String text) {}

    private static DelayQueue<Msg> queue(RedisClient redis, String name) {
        return DelayQueue.builder(redis, name, Msg.class).build();
    }

    /** Claims {@code ids} (which must be the only due jobs) and dead-letters each with "boom <id>". */
    private static void kill(DelayQueue<Msg> q, int n) {
        List<Job<Msg>> jobs = q.claim(n);
        assertThat(jobs).hasSize(n);
        for (Job<Msg> j : jobs) {
            assertThat(q.deadLetter(j, "boom " + j.id())).isTrue();
        }
    }

    @Test
    void registered_listsWorkersDeferralsAndLockPrefixes_andDropsStaleEntries(RedisClient redis) throws Exception {
        redis.hset("deferlock:registry", "queue:gone", Long.toString(System.currentTimeMillis() - 2 * 86_400_000L));
        redis.hset("deferlock:registry", "future-kind:x", "1"); // a newer writer's kind: skipped, kept
        DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue(redis, "emails"), job -> {})
                .build()
                .start();
        Deferrals deferrals =
                Deferrals.builder(redis, "deferred").mode(DeferMode.ORDERED).build();
        RedisLocks locks = RedisLocks.builder(redis).build();
        RedisLocks other = RedisLocks.builder(redis).keyPrefix("jobs:lock:").build();
        try {
            deferrals.startWorker(1);
            Inspector inspector =
                    Inspector.builder(redis).lockPrefixes(List.of("jobs:lock:")).build();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> inspector.registered().size() == 4);
            assertThat(inspector.registered())
                    .extracting(RegistryEntry::kind, RegistryEntry::name)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(EntryKind.QUEUE, "emails"),
                            org.assertj.core.groups.Tuple.tuple(EntryKind.DEFERRALS, "deferred"),
                            org.assertj.core.groups.Tuple.tuple(EntryKind.LOCK_PREFIX, "jobs:lock:"),
                            org.assertj.core.groups.Tuple.tuple(EntryKind.LOCK_PREFIX, "lock:"));
            assertThat(inspector.registered()).allSatisfy(e -> assertThat(e.lastSeen())
                    .isBetween(Instant.now().minusSeconds(60), Instant.now()));
            assertThat(redis.hexists("deferlock:registry", "queue:gone"))
                    .as("stale entry deleted")
                    .isFalse();
            assertThat(redis.hexists("deferlock:registry", "future-kind:x")).isTrue();
        } finally {
            worker.close();
            deferrals.close();
            locks.close();
            other.close();
        }
    }

    @Test
    void registered_staleAfter_dropsEntriesOlderThanTheLimitOnly(RedisClient redis) {
        long now = System.currentTimeMillis();
        redis.hset("deferlock:registry", "queue:recent", Long.toString(now - 50_000));
        redis.hset("deferlock:registry", "queue:old", Long.toString(now - 70_000));
        Inspector inspector =
                Inspector.builder(redis).staleAfter(Duration.ofMinutes(1)).build();
        assertThat(inspector.registered()).extracting(RegistryEntry::name).containsExactly("recent");
        assertThat(redis.hkeys("deferlock:registry")).containsExactly("queue:recent");
    }

    @Test
    void queueStats_countsEachState_inOneSnapshot(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "stats");
        for (int i = 0; i < 6; i++) {
            q.enqueue("d" + i, new Msg("x"), Duration.ZERO);
        }
        kill(q, 2); // the two oldest die
        q.claim(1); // one in flight
        q.enqueue("later", new Msg("x"), Duration.ofHours(1));
        QueueStats s = Inspector.builder(redis).build().queueStats("stats");
        assertThat(s.queue()).isEqualTo("stats");
        assertThat(s.waiting()).isEqualTo(4);
        assertThat(s.due()).isEqualTo(3);
        assertThat(s.inFlight()).isEqualTo(1);
        assertThat(s.dead()).isEqualTo(2);
        assertThat(s.enqueued()).isEqualTo(7);
        assertThat(s.deadLettered()).isEqualTo(2);
        assertThat(s.acked()).isZero();
        assertThat(s.oldestDueAge()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(Duration.ofMinutes(1));
        assertThat(s.at())
                .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
        QueueStats none = Inspector.builder(redis).build().queueStats("nothing-here");
        assertThat(List.of(none.waiting(), none.due(), none.inFlight(), none.dead()))
                .containsOnly(0L);
        assertThat(none.oldestDueAge()).isZero();
    }

    @Test
    void deadLetters_pagesOldestFirst_withErrorsAttemptsAndCappedPayload(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "dl");
        for (int i = 0; i < 5; i++) {
            q.enqueue("j" + i, new Msg("é".repeat(20) + i), Duration.ZERO);
        }
        kill(q, 5);
        Inspector inspector = Inspector.builder(redis).payloadPreviewBytes(16).build();
        DeadLetterPage page = inspector.deadLetters("dl", 1, 2);
        assertThat(page.total()).isEqualTo(5);
        assertThat(page.offset()).isEqualTo(1);
        assertThat(page.items()).extracting(DeadLetterView::id).containsExactly("j1", "j2");
        DeadLetterView first = page.items().get(0);
        assertThat(first.lastError()).isEqualTo("boom j1");
        assertThat(first.attempts()).isEqualTo(1);
        assertThat(first.diedAt())
                .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
        // {"text":"éé… : 9 ASCII bytes, then 2-byte characters: 16 bytes end inside the 4th é, cut before it
        assertThat(first.payload().text()).isEqualTo("{\"text\":\"ééé");
        assertThat(first.payload().truncated()).isTrue();
        assertThat(first.payload().totalBytes()).isEqualTo("{\"text\":\"\"}".length() + 40 + 1);
        assertThat(inspector.deadLetters("dl", 4, 10).items())
                .extracting(DeadLetterView::id)
                .containsExactly("j4");
        assertThat(inspector.deadLetters("dl", 5, 10).items()).isEmpty();
        assertThat(Inspector.builder(redis)
                        .build()
                        .deadLetters("dl", 0, 1)
                        .items()
                        .get(0)
                        .payload())
                .isEqualTo(new PayloadPreview("{\"text\":\"" + "é".repeat(20) + "0\"}", 52, false));
        assertThatThrownBy(() -> inspector.deadLetters("dl", -1, 2)).hasMessageContaining("offset");
        assertThatThrownBy(() -> inspector.deadLetters("dl", 0, 0)).hasMessageContaining("limit");
        assertThatThrownBy(() -> inspector.deadLetters("a{b", 0, 1)).hasMessageContaining("queue name");
    }

    @Test
    void job_showsStateAttemptsTimesAndPayload(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "jobs");
        q.enqueue("now", new Msg("<script>alert(1)</script>"), Duration.ZERO);
        q.enqueue("later", new Msg("b"), Duration.ofHours(2));
        Inspector inspector = Inspector.builder(redis).build();
        JobView due = inspector.job("jobs", "now").orElseThrow();
        assertThat(due.state()).isEqualTo(JobState.DUE);
        assertThat(due.attempts()).isZero();
        assertThat(due.payload().text()).isEqualTo("{\"text\":\"<script>alert(1)</script>\"}");
        assertThat(due.headers()).isEmpty();
        assertThat(inspector.job("jobs", "later").orElseThrow().dueAt()).get().satisfies(at -> assertThat(at)
                .isAfter(Instant.now().plus(Duration.ofMinutes(110))));
        Job<Msg> claimed = q.claim(1).get(0);
        JobView inFlight = inspector.job("jobs", "now").orElseThrow();
        assertThat(inFlight.state()).isEqualTo(JobState.IN_FLIGHT);
        assertThat(inFlight.attempts()).isEqualTo(1);
        assertThat(inFlight.visibleUntil()).isPresent();
        q.deadLetter(claimed, "bad payload");
        JobView dead = inspector.job("jobs", "now").orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.lastError()).contains("bad payload");
        assertThat(dead.diedAt()).isPresent();
        assertThat(inspector.job("jobs", "missing")).isEmpty();

        q.enqueueJob(NewJob.of("with-headers", new Msg("h"), Duration.ZERO)
                .withHeader("trace-id", "abc")
                .withHeader("tenant", "<b>t1</b>"));
        JobView headed = inspector.job("jobs", "with-headers").orElseThrow();
        assertThat(headed.headers()).isEqualTo(java.util.Map.of("trace-id", "abc", "tenant", "<b>t1</b>"));
        assertThat(headed.payload().text()).isEqualTo("{\"text\":\"h\"}");
    }

    /** Envelopes with a header block (docs/queue-keys.md: 0x1E, length, ':', block) before the JSON. */
    @Test
    void payloadPreview_skipsAHeaderBlock(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "hdr");
        q.enqueue("h", new Msg("x"), Duration.ZERO);
        kill(q, 1);
        String env = redis.hget("deferlock:dq:{hdr}:jobs", "h");
        int bar = env.indexOf('|', env.indexOf('|', env.indexOf('|') + 1) + 1);
        redis.hset(
                "deferlock:dq:{hdr}:jobs",
                "h",
                env.substring(0, bar + 1) + "\u001e10:1:k5:hello" + env.substring(bar + 1));
        Inspector inspector = Inspector.builder(redis).build();
        PayloadPreview expected = new PayloadPreview("{\"text\":\"x\"}", 12, false);
        assertThat(inspector.job("hdr", "h").orElseThrow().payload()).isEqualTo(expected);
        assertThat(inspector.deadLetters("hdr", 0, 10).items())
                .singleElement()
                .satisfies(d -> assertThat(d.payload()).isEqualTo(expected))
                .satisfies(d -> assertThat(d.attempts()).isEqualTo(1));
    }

    /**
     * A job with a priority, a concurrency key and headers: the priority prefix (0x1F, digit), the key (0x1D) and
     * the header block are skipped; a held job of the key shows in heldKeys.
     */
    @Test
    void payloadPreview_skipsThePriorityPrefix_andTheViewShowsPriorityAndProgress(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "prio");
        q.concurrencyKeys().limit(1);
        q.enqueueJob(NewJob.of("p", new Msg("x"), Duration.ZERO)
                .withPriority(6)
                .withConcurrencyKey("tenant-1")
                .withHeader("k", "hello"));
        q.enqueueJob(NewJob.of("held", new Msg("y"), Duration.ZERO).withConcurrencyKey("tenant-1"));
        Job<Msg> job = q.claim(2).get(0);
        assertThat(Inspector.builder(redis).build().heldKeys("prio", 10))
                .containsExactly(new Inspector.HeldKey("tenant-1", 1, 1, 1));
        assertThat(q.cancel("held")).isTrue();
        job.progress(30, "a third");
        Inspector inspector = Inspector.builder(redis).build();
        PayloadPreview expected = new PayloadPreview("{\"text\":\"x\"}", 12, false);
        JobView view = inspector.job("prio", "p").orElseThrow();
        assertThat(view.payload()).isEqualTo(expected);
        assertThat(view.priority()).isEqualTo(6);
        assertThat(view.headers()).containsEntry("k", "hello");
        assertThat(view.progress()).get().satisfies(p -> {
            assertThat(p.percent()).isEqualTo(30);
            assertThat(p.note()).isEqualTo("a third");
        });
        assertThat(q.deadLetter(job, "no")).isTrue();
        assertThat(redis.hlen("deferlock:dq:{prio}:errors")).isEqualTo(2); // the reason and the progress
        assertThat(inspector.deadLetters("prio", 0, 10).items()).singleElement().satisfies(d -> assertThat(d.payload())
                .isEqualTo(expected));
        assertThat(inspector.purgeDead("prio", List.of("p")).applied()).containsExactly("p");
        byte[] errors = "deferlock:dq:{prio}:errors".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(redis.hexists(errors, new byte[] {(byte) 0xFF, 'p'})).isFalse();
        assertThat(redis.hlen(errors)).isZero(); // the last error went with it
    }

    @Test
    void requeueAndPurge_touchOnlyTheGivenDeadLetters(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "acts");
        for (int i = 0; i < 4; i++) {
            q.enqueue("x" + i, new Msg("m"), Duration.ZERO);
        }
        kill(q, 4);
        q.enqueue("alive", new Msg("m"), Duration.ZERO);
        Inspector inspector = Inspector.builder(redis).build();

        IdActionResult requeued = inspector.requeueDead("acts", List.of("x0", "alive", "nope"));
        assertThat(requeued.applied()).containsExactly("x0");
        assertThat(requeued.notFound()).containsExactly("alive", "nope");
        assertThat(q.get("x0").orElseThrow().state()).isEqualTo(JobState.DUE);
        assertThat(q.size(JobState.DEAD)).isEqualTo(3);

        IdActionResult purged = inspector.purgeDead("acts", List.of("x1", "alive", "x0", "nope", "x1"));
        assertThat(purged.applied()).containsExactly("x1");
        assertThat(purged.notFound()).containsExactly("alive", "x0", "nope");
        assertThat(q.get("x1")).isEmpty();
        assertThat(redis.hexists("deferlock:dq:{acts}:errors", "x1")).isFalse();
        assertThat(q.get("alive")).isPresent();
        assertThat(q.get("x0")).isPresent();
        assertThat(q.deadLetters().list(10)).extracting(d -> d.id()).containsExactly("x2", "x3");

        assertThat(inspector.cancel("acts", "alive")).isTrue();
        assertThat(inspector.cancel("acts", "alive")).isFalse();
        assertThat(inspector.requeueAllDead("acts")).isEqualTo(2);
        assertThat(q.size(JobState.DEAD)).isZero();
        assertThat(q.size(JobState.DUE)).isEqualTo(3);

        assertThatThrownBy(() -> inspector.purgeDead("acts", List.of())).hasMessageContaining("number of ids");
        assertThatThrownBy(() -> inspector.requeueDead("acts", List.of("\uD800")))
                .hasMessageContaining("job id");
    }

    @Test
    void locks_showHolderLeaseFenceAndWaiters(RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                RedisLocks rival = RedisLocks.builder(redis).build()) {
            LockLease a = locks.get("order:1")
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                    .orElseThrow();
            LockLease b = locks.get("100% {odd}\nname")
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                    .orElseThrow();
            DistributedLock free = locks.get("free");
            free.lock();
            free.unlock();
            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
                DistributedLock l = rival.get("order:1");
                boolean got = l.tryLock(Duration.ofSeconds(20));
                if (got) {
                    l.unlock();
                }
                return got;
            });
            Inspector inspector = Inspector.builder(redis).build();
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            inspector.lock("lock:", "order:1").orElseThrow().waiters());

            LockPage page = inspector.locks("lock:", 100);
            assertThat(page.more()).isFalse();
            assertThat(page.locks()).extracting(LockView::name).containsExactly("100% {odd}\nname", "order:1");
            LockView one = page.locks().get(1);
            assertThat(one.key()).isEqualTo("lock:{order:1}");
            assertThat(one.holderToken()).get().asString().matches("[0-9a-f]{32}");
            assertThat(one.remainingLease()).get().satisfies(d -> assertThat(d)
                    .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30)));
            assertThat(one.fencingCounter()).hasValue(a.fencingToken());
            assertThat(one.waiters()).isTrue();
            assertThat(page.locks().get(0).key()).isEqualTo("lock:{100%25 %7Bodd%7D\nname}");
            assertThat(page.locks().get(0).fencingCounter()).hasValue(b.fencingToken());
            assertThat(page.locks().get(0).waiters()).isFalse();

            LockView freeView = inspector.lock("lock:", "free").orElseThrow();
            assertThat(freeView.held()).isFalse();
            assertThat(freeView.remainingLease()).isEmpty();
            assertThat(freeView.fencingCounter()).isPresent();
            assertThat(inspector.lock("lock:", "never")).isEmpty();
            // released to the head of its waiter queue and not yet taken (lock-core issue 19): free, waited for
            redis.set(
                    "lock:{reserved}",
                    "~0123456789abcdef",
                    SetParams.setParams().px(10_000));
            LockView reserved = inspector.lock("lock:", "reserved").orElseThrow();
            assertThat(reserved.held()).isFalse();
            assertThat(reserved.remainingLease()).isEmpty();
            assertThat(reserved.waiters()).isTrue();
            redis.del("lock:{reserved}");
            assertThat(inspector.locks("lock:", 1).more()).isTrue();
            assertThat(inspector.locks("other:", 10).locks()).isEmpty();

            a.close();
            assertThat(waiting.get()).isTrue();
            b.close();
        }
    }

    @Test
    void lockScan_stepsSpendAtMostTheirScanBudget_andTheWalkStillFindsEveryLock(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build();
                var lease = locks.get("order:7").acquire(Duration.ofSeconds(5), Duration.ofMinutes(1))) {
            Map<String, String> unrelated = new java.util.HashMap<>();
            for (int i = 0; i < 20_000; i++) {
                unrelated.put("unrelated:" + i, "x");
            }
            redis.mset(unrelated.entrySet().stream()
                    .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue()))
                    .toArray(String[]::new));
            LockScan scan = Inspector.builder(redis).build().lockScan("lock:", 10);

            long steps = 0;
            long calls = 0;
            while (true) {
                long before = scan.scanCalls();
                boolean done = scan.step(3);
                assertThat(scan.scanCalls() - before).isBetween(0L, 3L);
                calls = scan.scanCalls();
                steps++;
                if (done) {
                    break;
                }
            }

            assertThat(steps).as("20,000 keys take several steps of 3 calls").isGreaterThan(2);
            assertThat(calls).isLessThanOrEqualTo(3 * steps);
            assertThat(scan.read().locks()).extracting(LockView::name).containsExactly("order:7");
            assertThat(lease.isHeld()).isTrue();
        }
    }

    /**
     * Issue 27: real parked work (ordered DEFER through a ConflictAwareHandler while another client holds the
     * key) shows as the parked count and the age of the oldest item, read from the head's park time.
     */
    @Test
    void lock_showsParkedCountAndTheAgeOfTheOldestParkedItem(RedisServer server, RedisClient redis) {
        try (RedisClient holderClient = server.newClient();
                RedisLocks holder = RedisLocks.builder(holderClient).build();
                RedisLocks locks = RedisLocks.builder(redis).build();
                Deferrals deferrals = Deferrals.builder(redis, "parked-view")
                        .mode(DeferMode.ORDERED)
                        .build()) {
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("view", Msg.class, locks)
                    .key(m -> "k:1")
                    .messageId(Msg::text)
                    .handler(m -> {})
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, Duration.ofMinutes(1));
            long before = System.currentTimeMillis();
            assertThat(handler.handle(new Msg("a"))).isEqualTo(Outcome.DEFERRED);
            long after = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() > after + 20);
            assertThat(handler.handle(new Msg("b"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("c"))).isEqualTo(Outcome.DEFERRED);
            assertThat(redis.llen("lock:{k:1}:parked")).isEqualTo(3);

            Instant at = Instant.now().plus(Duration.ofHours(1));
            Inspector inspector = Inspector.builder(redis)
                    .clock(java.time.Clock.fixed(at, java.time.ZoneOffset.UTC))
                    .build();
            LockView held = inspector.locks("lock:", 10).locks().get(0);
            assertThat(held.name()).isEqualTo("k:1");
            assertThat(held.parked()).isEqualTo(3);
            assertThat(held.oldestParkedAge())
                    .as("the age of the head a, parked between before and after, not of c")
                    .hasValueSatisfying(d ->
                            assertThat(d.toMillis()).isBetween(at.toEpochMilli() - after, at.toEpochMilli() - before));

            hold.close(); // free, and no worker runs: the work stays parked, and lock show still shows it
            LockView free = inspector.lock("lock:", "k:1").orElseThrow();
            assertThat(free.held()).isFalse();
            assertThat(free.parked()).isEqualTo(3);
            assertThat(free.oldestParkedAge()).isPresent();

            // a head whose payload has no park time (not this version's JSON): counted, age unknown
            String head = redis.lindex("lock:{k:1}:parked", 0);
            redis.hset("lock:{k:1}:parked-items", head, "not json");
            LockView unknown = inspector.lock("lock:", "k:1").orElseThrow();
            assertThat(unknown.parked()).isEqualTo(3);
            assertThat(unknown.oldestParkedAge()).isEmpty();

            assertThat(inspector.lock("lock:", "never-parked")).isEmpty();
        }
    }

    @Test
    void pauseAndResume_stopClaims_andShowInStats(RedisClient redis) {
        DelayQueue<Msg> q = queue(redis, "pausing");
        q.enqueue(new Msg("a"));
        Inspector inspector = Inspector.builder(redis).build();
        assertThat(inspector.isPaused("pausing")).isFalse();
        assertThat(inspector.pause("pausing")).isTrue();
        assertThat(inspector.pause("pausing")).isFalse();
        assertThat(inspector.isPaused("pausing")).isTrue();
        QueueStats stats = inspector.queueStats("pausing");
        assertThat(stats.paused()).isTrue();
        assertThat(stats.pausedSince()).isBetween(stats.at().minusSeconds(60), stats.at());
        assertThat(q.claim(1)).isEmpty();
        assertThat(inspector.resume("pausing")).isTrue();
        assertThat(inspector.resume("pausing")).isFalse();
        assertThat(inspector.queueStats("pausing").paused()).isFalse();
        assertThat(q.claim(1)).hasSize(1);
        assertThatThrownBy(() -> inspector.pause("bad{name")).isInstanceOf(IllegalArgumentException.class);
    }
}
