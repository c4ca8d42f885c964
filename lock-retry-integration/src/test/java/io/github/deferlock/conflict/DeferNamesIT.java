package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.AccessControlLogEntry;
import redis.clients.jedis.resps.ScanResult;

/**
 * Handler names and message ids follow the one name rule (docs/names.md): two different (handler, id) pairs
 * never share a deferral or a done marker, and every key DEFER writes lives under its queue's prefix.
 */
@ExtendWith(RedisExtension.class)
final class DeferNamesIT {

    private static final String QUEUE_PREFIX = "deferlock:dq:{deferred}:";

    /** A message of handler {@code handler} whose id is {@code id}, on lock key {@code order:<order>}. */
    private record Tagged(String id, String order) {}

    private static ConflictAwareHandler<Tagged> handler(
            String name, RedisLocks locks, Deferrals deferrals, Map<String, AtomicInteger> runs) {
        return ConflictAwareHandler.builder(name, Tagged.class, locks)
                .key(m -> "order:" + m.order())
                .messageId(Tagged::id)
                .handler(m -> runs.computeIfAbsent(name + " / " + m.id(), k -> new AtomicInteger())
                        .incrementAndGet())
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    /** Takes {@code key} in another RedisLocks for {@code lease} and never releases it. */
    private static void holdElsewhere(RedisLocks other, String key, Duration lease) throws InterruptedException {
        Thread t = new Thread(
                () -> assertThat(other.get(key).tryLock(Duration.ZERO, lease)).isTrue());
        t.start();
        t.join();
    }

    /** Regression: the deferral job id "h:x:1" was shared by handler h + id x:1 and handler h:x + id 1. */
    @Test
    void defer_handlerAndIdWithColons_twoDeferredJobsAndBothRun(RedisServer server, RedisClient redis)
            throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                RedisClient otherClient = server.newClient();
                RedisLocks other =
                        RedisLocks.builder(otherClient).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .mode(DeferMode.ORDERED)
                        .backoff(Backoff.fixed(Duration.ofMillis(100)))
                        .build()) {
            ConflictAwareHandler<Tagged> h = handler("h", locks, deferrals, runs);
            ConflictAwareHandler<Tagged> hx = handler("h:x", locks, deferrals, runs);
            holdElsewhere(other, "order:1", Duration.ofMillis(800));
            assertThat(h.handle(new Tagged("x:1", "1"))).isEqualTo(Outcome.DEFERRED);
            assertThat(hx.handle(new Tagged("1", "1"))).isEqualTo(Outcome.DEFERRED);
            assertThat(redis.llen("t:{order:1}:parked"))
                    .as("two parked messages, one per (handler, id)")
                    .isEqualTo(2);
            deferrals.startWorker(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 2);
            assertThat(runs).containsOnlyKeys("h / x:1", "h:x / 1");
            assertThat(runs.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
        }
    }

    /** Regression: done markers "<q>:done:{<handler>}:<id>" of handler a + id b}:1 and a}:b + 1 were one key. */
    @Test
    void doneMarkers_handlerNameWithBrace_doNotCollide(RedisClient redis) {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .mode(DeferMode.ORDERED)
                        .build()) {
            ConflictAwareHandler<Tagged> a = handler("a", locks, deferrals, runs);
            ConflictAwareHandler<Tagged> ab = handler("a}:b", locks, deferrals, runs);
            ConflictAwareHandler<Tagged> brace = handler("{a}", locks, deferrals, runs);
            assertThat(a.handle(new Tagged("b}:1", "1"))).isEqualTo(Outcome.PROCESSED);
            assertThat(ab.handle(new Tagged("1", "1"))).isEqualTo(Outcome.PROCESSED);
            assertThat(brace.handle(new Tagged("b}:1", "1"))).isEqualTo(Outcome.PROCESSED);
            // the same (handler, id) again is a duplicate: the markers work
            assertThat(ab.handle(new Tagged("1", "1"))).isEqualTo(Outcome.DUPLICATE);
            assertThat(a.handle(new Tagged("b}:1", "1"))).isEqualTo(Outcome.DUPLICATE);
            assertThat(runs).containsOnlyKeys("a / b}:1", "a}:b / 1", "{a} / b}:1");
        }
    }

    /** Every key a DEFER workload with message ids writes is under the queue's prefix or the lock prefix. */
    @Test
    void defer_withMessageIds_everyKeyIsUnderTheQueuePrefixOrTheLockPrefix(RedisServer server, RedisClient redis)
            throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                RedisClient otherClient = server.newClient();
                RedisLocks other =
                        RedisLocks.builder(otherClient).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .mode(DeferMode.ORDERED)
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .build()) {
            ConflictAwareHandler<Tagged> h = handler("h}{:", locks, deferrals, runs);
            holdElsewhere(other, "order:hot", Duration.ofMillis(500));
            for (int i = 0; i < 10; i++) {
                h.handle(new Tagged("m" + i + "}", i % 2 == 0 ? "hot" : "cold" + i));
            }
            deferrals.startWorker(2);
            await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == 10);
            assertThat(h.handle(new Tagged("m0}", "hot"))).isEqualTo(Outcome.DUPLICATE);
        }
        Set<String> keys = allKeys(server);
        assertThat(keys).anySatisfy(k -> assertThat(k).startsWith(QUEUE_PREFIX + "done:"));
        assertThat(keys).allSatisfy(k -> assertThat(k)
                .matches(s -> s.startsWith(QUEUE_PREFIX) || s.startsWith("t:") || s.equals("deferlock:registry")));
    }

    /** The ACL recipe of docs/guarantees.md S1 (lock prefix + deferlock:*) covers DEFER with message ids. */
    @Test
    void defer_withMessageIds_worksForAnAclUserLimitedToTheLockAndQueuePrefixes(RedisServer server) throws Exception {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "deferapp",
                    "reset",
                    "on",
                    ">s3cret",
                    "~t:*",
                    "~deferlock:*",
                    "resetchannels",
                    "&t:*",
                    "&deferlock:*",
                    "+@all",
                    "-@admin",
                    "-@dangerous");
            admin.aclLogReset();
        }
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (RedisClient app = RedisClient.builder()
                        .hostAndPort(server.hostAndPort())
                        .clientConfig(DefaultJedisClientConfig.builder()
                                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is @admin on 6.2
                                .user("deferapp")
                                .password("s3cret")
                                .build())
                        .build();
                RedisLocks locks = RedisLocks.builder(app).keyPrefix("t:").build();
                RedisClient otherClient = server.newClient();
                RedisLocks other =
                        RedisLocks.builder(otherClient).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(app, "deferred")
                        .mode(DeferMode.ORDERED)
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .build()) {
            ConflictAwareHandler<Tagged> h = handler("orders", locks, deferrals, runs);
            holdElsewhere(other, "order:7", Duration.ofMillis(500));
            assertThat(h.handle(new Tagged("e1", "7"))).isEqualTo(Outcome.DEFERRED);
            assertThat(h.handle(new Tagged("e1", "7"))).as("a redelivery").isEqualTo(Outcome.DEFERRED);
            assertThat(h.handle(new Tagged("e2", "8"))).isEqualTo(Outcome.PROCESSED);
            deferrals.startWorker(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> runs.containsKey("orders / e1"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(h.handle(new Tagged("e1", "7"))).isEqualTo(Outcome.DUPLICATE);
            assertThat(h.handle(new Tagged("e2", "8"))).isEqualTo(Outcome.DUPLICATE);
            assertThat(runs.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
            assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
        }
        try (Jedis admin = server.newConnection()) {
            // only the worker's start-up eviction check (Q8) may be denied
            List<AccessControlLogEntry> denied = admin.aclLog();
            assertThat(denied)
                    .as("commands the ACL denied")
                    .extracting(AccessControlLogEntry::getObject)
                    .allSatisfy(o -> assertThat(o).isIn("info", "config|get", "config"));
            admin.aclDelUser("deferapp");
        }
    }

    /** Handler names and message ids that break the rule are refused, naming the value and the rule. */
    @Test
    void badHandlerNamesAndMessageIds_refusedNamingTheValueAndTheRule(RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .mode(DeferMode.ORDERED)
                        .build()) {
            assertThatThrownBy(() -> ConflictAwareHandler.builder("h\uD800", Tagged.class, locks))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("handler name \"h\\uD800\"")
                    .hasMessageContaining("valid Unicode");
            assertThatThrownBy(() -> ConflictAwareHandler.builder("h".repeat(101), Tagged.class, locks))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 100 bytes");
            Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
            ConflictAwareHandler<Tagged> h = handler("ok", locks, deferrals, runs);
            assertThatThrownBy(() -> h.handle(new Tagged("m\uDC00", "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("message id \"m\\uDC00\"");
            assertThatThrownBy(() -> h.handle(new Tagged("", "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("message id");
            assertThatThrownBy(() -> h.handle(new Tagged("i".repeat(401), "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 400 bytes");
            assertThat(runs).isEmpty();
            assertThatThrownBy(() -> Deferrals.builder(redis, "q\uD800").mode(DeferMode.ORDERED))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("queue name");
        }
    }

    private static Set<String> allKeys(RedisServer server) {
        Set<String> keys = new java.util.HashSet<>();
        try (Jedis admin = server.newConnection()) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = admin.scan(cursor, new ScanParams().count(500));
                keys.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return keys;
    }
}
