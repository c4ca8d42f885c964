package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.AccessControlLogEntry;

/** Queue security and odd input (issue 7, S1, S3, S4). */
@ExtendWith(RedisExtension.class)
final class QueueSecurityIT {

    /** A class whose construction would show a polymorphic-typing gadget was instantiated. */
    public static final class Gadget {
        static volatile boolean instantiated;

        public Gadget() {
            instantiated = true;
        }
    }

    private static final String[] ODD = {"\"q'uote", "new\nline\r\n", "nul\0x", "{br}ace}", "😀 emoji", "%7B", ""};

    /** S3: a payload carrying "@class" stays data: decoded as a map or a plain record, never instantiated. */
    @Test
    void claim_payloadWithAtClassGadget_handledAsPlainData(UnifiedJedis redis) {
        Map<String, Object> gadget = new LinkedHashMap<>();
        gadget.put("@class", Gadget.class.getName());
        gadget.put("text", "x");
        gadget.put("n", 1);
        DelayQueue<Object> untyped =
                DelayQueue.builder(redis, "s3", Object.class).build();
        untyped.enqueue(gadget);
        untyped.enqueue(List.of(Gadget.class.getName(), Map.of("n", 2)));
        List<Job<Object>> jobs = untyped.claim(10);
        assertThat(jobs).extracting(Job::payload).allSatisfy(p -> assertThat(p).isNotInstanceOf(Gadget.class));
        assertThat(jobs.get(0).payload()).isEqualTo(gadget);
        jobs.forEach(untyped::ack);

        untyped.enqueue(gadget);
        DelayQueue<Msg> typed = DelayQueue.builder(redis, "s3", Msg.class).build();
        Set<Object> outcomes = ConcurrentHashMap.newKeySet();
        try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(typed, job -> outcomes.add(job.payload()))
                .build()
                .start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !outcomes.isEmpty() || typed.size(JobState.DEAD) == 1);
            assertThat(worker.isRunning()).isTrue(); // a bad payload never stops a worker
        }
        assertThat(outcomes).allSatisfy(p -> assertThat(p).isInstanceOf(Msg.class));
        assertThat(Gadget.instantiated).isFalse();
    }

    /** S4: odd text, ids and raw bytes (including invalid UTF-8, as byte[]) round-trip exactly. */
    @Test
    void enqueue_oddPayloadsAndIds_roundTripExactly(UnifiedJedis redis) {
        DelayQueue<Msg> text = DelayQueue.builder(redis, "s4", Msg.class).build();
        for (int i = 0; i < ODD.length; i++) {
            String id = ODD[i].isEmpty() ? null : ODD[i] + i;
            Msg msg = new Msg(String.join("|", ODD) + i, i);
            EnqueueResult r = id == null ? text.enqueue(msg) : text.enqueue(id, msg, Duration.ZERO);
            if (id != null) {
                assertThat(r.id()).isEqualTo(id);
                assertThat(text.get(id)).isPresent();
            }
        }
        List<Job<Msg>> jobs = text.claim(100);
        assertThat(jobs).hasSize(ODD.length);
        for (Job<Msg> job : jobs) {
            int i = job.payload().n();
            assertThat(job.payload().text()).isEqualTo(String.join("|", ODD) + i);
            if (!ODD[i].isEmpty()) {
                assertThat(job.id()).isEqualTo(ODD[i] + i);
            }
            assertThat(text.ack(job)).isTrue();
        }

        byte[] raw = {
            (byte) 0xff, (byte) 0xc0, (byte) 0x80, 0, '{', '}', '"', '\n', (byte) 0xed, (byte) 0xa0, (byte) 0x80
        };
        DelayQueue<byte[]> bytes =
                DelayQueue.builder(redis, "s4b", byte[].class).build();
        bytes.enqueue(raw);
        Job<byte[]> job = bytes.claim(1).get(0);
        assertThat(job.payload()).isEqualTo(raw);
    }

    /** S4: the script cache holds the same scripts after one queue and after 100 more. */
    @Test
    void queues_100Distinct_scriptCacheDoesNotGrow(RedisServer server, UnifiedJedis redis) {
        DelayQueue<Msg> warm = DelayQueue.builder(redis, "warm", Msg.class).build();
        warm.enqueue(new Msg("w", 0));
        warm.ack(warm.claim(1).get(0));
        warm.size(JobState.DUE); // a script too (stats.lua: the due zset and its priority levels)
        long before = cachedScripts(server);
        for (int i = 0; i < 100; i++) {
            DelayQueue<Msg> q =
                    DelayQueue.builder(redis, "q\"\n" + i, Msg.class).build();
            q.enqueue("id" + i, new Msg("x", i), Duration.ZERO);
            q.ack(q.claim(1).get(0));
            q.size(JobState.DUE);
        }
        assertThat(cachedScripts(server)).isEqualTo(before);
    }

    /** S1: a user limited to {@code ~deferlock:*} and {@code &deferlock:*}, without admin commands, suffices. */
    @Test
    void queue_aclUserLimitedToQueuePrefix_worksWithoutDeniedCommands(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "app",
                    "reset",
                    "on",
                    ">s3cret",
                    "~deferlock:*",
                    "resetchannels",
                    "&deferlock:*",
                    "+@all",
                    "-@admin",
                    "-@dangerous");
            admin.aclLogReset();
        }
        try (RedisClient app = RedisClient.builder()
                .hostAndPort(server.hostAndPort())
                .clientConfig(DefaultJedisClientConfig.builder()
                        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is @admin on 6.2
                        .user("app")
                        .password("s3cret")
                        .build())
                .build()) {
            DelayQueue<Msg> queue = DelayQueue.builder(app, "acl", Msg.class)
                    .visibilityTimeout(Duration.ofMillis(500))
                    .maxAttempts(2)
                    .build();
            Set<Integer> handled = ConcurrentHashMap.newKeySet();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(queue, job -> {
                        if (job.payload().n() == 0) {
                            throw new IllegalStateException("poison");
                        }
                        handled.add(job.payload().n());
                    })
                    .concurrency(2)
                    .build()
                    .start()) {
                for (int i = 0; i < 20; i++) {
                    queue.enqueue(new Msg("m", i), Duration.ofMillis(i * 20L));
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> handled.size() == 19 && queue.size(JobState.DEAD) == 1);
                assertThat(worker.isRunning()).isTrue();
            }
            assertThat(queue.deadLetters().list(10)).hasSize(1);
            assertThat(queue.deadLetters().requeueAll()).isEqualTo(1);
            assertThat(queue.deadLetters().purge()).isZero();
            assertThat(queue.oldestDueAge()).isNotNull();
            try (Jedis admin = server.newConnection()) {
                // the worker's one start-up check of maxmemory-policy (Q8) tries INFO and CONFIG GET, is
                // denied, and logs that it could not check; nothing else may be denied
                assertThat(admin.aclLog())
                        .as("commands the ACL denied")
                        .extracting(AccessControlLogEntry::getObject)
                        .allSatisfy(o -> assertThat(o).isIn("info", "config|get", "config"));
            }
            assertThatThrownBy(() -> app.set("other:x", "1")).hasMessageContaining("NOPERM");
        }
        try (Jedis admin = server.newConnection()) {
            admin.aclDelUser("app");
        }
    }

    /** S5: null, empty, negative, zero and absurd arguments fail at once naming the argument; DBSIZE stays 0. */
    @Test
    void queueApi_badArguments_failNamingTheArgumentAndWriteNothing(RedisServer server, UnifiedJedis redis) {
        String huge = "x".repeat(1_000_000);
        Duration years = Duration.ofDays(3 * 365);
        bad(() -> DelayQueue.builder(null, "q", Msg.class), NullPointerException.class, "redis");
        bad(() -> DelayQueue.builder(redis, null, Msg.class), NullPointerException.class, "name");
        bad(() -> DelayQueue.builder(redis, "", Msg.class), IllegalArgumentException.class, "name");
        bad(
                () -> DelayQueue.builder(redis, huge, Msg.class),
                IllegalArgumentException.class,
                "(1000000 chars) is 1000000 bytes");
        bad(() -> DelayQueue.builder(redis, "q", (Class<Msg>) null), NullPointerException.class, "type");
        DelayQueue.Builder<Msg> b = DelayQueue.builder(redis, "q", Msg.class);
        bad(() -> b.visibilityTimeout(Duration.ZERO), IllegalArgumentException.class, "visibilityTimeout");
        bad(() -> b.visibilityTimeout(Duration.ofSeconds(-1)), IllegalArgumentException.class, "visibilityTimeout");
        bad(
                () -> b.visibilityTimeout(Duration.ofSeconds(Long.MAX_VALUE)),
                IllegalArgumentException.class,
                "visibilityTimeout");
        bad(() -> b.maxAttempts(0), IllegalArgumentException.class, "maxAttempts");
        bad(() -> b.maxPayloadBytes(-1), IllegalArgumentException.class, "maxPayloadBytes");
        bad(() -> b.maxPayloadBytes(Integer.MAX_VALUE), IllegalArgumentException.class, "maxPayloadBytes");
        bad(() -> b.backoff(null), NullPointerException.class, "backoff");
        bad(() -> b.clock(null), NullPointerException.class, "clock");
        bad(() -> b.objectMapper(null), NullPointerException.class, "objectMapper");
        DelayQueue<Msg> q = b.build();
        Msg ok = new Msg("ok", 1);
        bad(() -> q.enqueue(null), NullPointerException.class, "payload");
        bad(() -> q.enqueue(ok, null), NullPointerException.class, "delay");
        bad(() -> q.enqueue(ok, Duration.ofMillis(-1)), IllegalArgumentException.class, "delay");
        bad(() -> q.enqueue(ok, years), IllegalArgumentException.class, "delay");
        bad(() -> q.enqueue(ok, Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class, "delay");
        bad(() -> q.enqueue(new Msg("x".repeat(100 * 1024 * 1024), 1)), IllegalArgumentException.class, "payload");
        bad(() -> q.enqueue(null, ok, Duration.ZERO), NullPointerException.class, "id");
        bad(() -> q.enqueue("", ok, Duration.ZERO), IllegalArgumentException.class, "id");
        bad(() -> q.enqueue(huge, ok, Duration.ZERO), IllegalArgumentException.class, "id");
        bad(() -> q.schedule(ok, null), NullPointerException.class, "at");
        bad(() -> q.schedule(ok, java.time.Instant.MAX), IllegalArgumentException.class, "at");
        bad(() -> q.schedule("id", ok, java.time.Instant.now().plus(years)), IllegalArgumentException.class, "at");
        bad(() -> q.enqueueAll(null), NullPointerException.class, "jobs");
        bad(() -> q.enqueueAll(null, Duration.ZERO), NullPointerException.class, "payloads");
        bad(() -> q.enqueueAll(List.of(ok), years), IllegalArgumentException.class, "delay");
        bad(
                () -> q.enqueueAll(List.of(NewJob.of(ok), NewJob.of(huge, ok, Duration.ZERO))),
                IllegalArgumentException.class,
                "id");
        bad(
                () -> q.enqueueAll(List.of(NewJob.of(ok), NewJob.at(ok, java.time.Instant.MAX))),
                IllegalArgumentException.class,
                "at");
        bad(() -> q.claim(0), IllegalArgumentException.class, "max");
        bad(() -> q.claim(-1), IllegalArgumentException.class, "max");
        bad(() -> q.claim(Integer.MAX_VALUE), IllegalArgumentException.class, "max");
        bad(() -> q.ack(null), NullPointerException.class, "job");
        bad(() -> q.nack(null, "e", null), NullPointerException.class, "job");
        bad(() -> q.deadLetter(null, "e"), NullPointerException.class, "job");
        bad(() -> q.reschedule(null, Duration.ZERO, null), NullPointerException.class, "job");
        bad(() -> q.extend(null, Duration.ofSeconds(1)), NullPointerException.class, "job");
        bad(() -> q.cancel(null), NullPointerException.class, "id");
        bad(() -> q.cancel(huge), IllegalArgumentException.class, "id");
        bad(() -> q.get(""), IllegalArgumentException.class, "id");
        bad(() -> q.deadLetters().requeue(huge), IllegalArgumentException.class, "id");
        bad(() -> q.size(null), NullPointerException.class, "state");
        bad(() -> q.deadLetters().list(0), IllegalArgumentException.class, "limit");
        bad(() -> q.deadLetters().list(Integer.MAX_VALUE), IllegalArgumentException.class, "limit");
        bad(() -> DelayQueueWorker.builder(null, job -> {}), NullPointerException.class, "queue");
        bad(() -> DelayQueueWorker.builder(q, null), NullPointerException.class, "handler");
        DelayQueueWorker.Builder<Msg> wb = DelayQueueWorker.builder(q, job -> {});
        bad(() -> wb.concurrency(0), IllegalArgumentException.class, "concurrency");
        bad(() -> wb.concurrency(Integer.MAX_VALUE), IllegalArgumentException.class, "concurrency");
        bad(() -> wb.batchSize(-1), IllegalArgumentException.class, "batchSize");
        bad(() -> wb.fallbackPoll(Duration.ZERO), IllegalArgumentException.class, "fallbackPoll");
        bad(() -> wb.fallbackPoll(Duration.ofSeconds(Long.MAX_VALUE)), IllegalArgumentException.class, "fallbackPoll");
        DelayQueueWorker<Msg> unstarted = wb.build();
        bad(() -> unstarted.close(null), NullPointerException.class, "timeout");
        bad(() -> unstarted.close(Duration.ofSeconds(-1)), IllegalArgumentException.class, "timeout");
        assertThat(unstarted.close(Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
        bad(() -> Backoff.fixed(null), NullPointerException.class, "delay");
        bad(() -> Backoff.fixed(Duration.ofMillis(-1)), IllegalArgumentException.class, "delay");
        bad(() -> Backoff.fixed(years), IllegalArgumentException.class, "delay");
        bad(
                () -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(Long.MAX_VALUE), 2),
                IllegalArgumentException.class,
                "max");
        bad(
                () -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1), 2),
                IllegalArgumentException.class,
                "max");
        bad(
                () -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1), Double.NaN),
                IllegalArgumentException.class,
                "factor");
        bad(() -> Backoff.schedule(), IllegalArgumentException.class, "delay");
        bad(() -> Backoff.schedule((Duration[]) null), NullPointerException.class, "delays");
        bad(() -> Backoff.fixed(Duration.ZERO).withJitter(-0.1), IllegalArgumentException.class, "jitter");
        bad(() -> Backoff.fixed(Duration.ZERO).delay(0), IllegalArgumentException.class, "attempt");
        try (Jedis admin = server.newConnection()) {
            assertThat(admin.dbSize()).as("keys written").isZero();
        }
    }

    private static void bad(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Class<? extends Throwable> type, String names) {
        assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(names);
    }

    private static long cachedScripts(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            for (String line : admin.info("memory").split("\r?\n")) {
                if (line.startsWith("number_of_cached_scripts:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        throw new AssertionError("no number_of_cached_scripts in INFO memory");
    }
}
