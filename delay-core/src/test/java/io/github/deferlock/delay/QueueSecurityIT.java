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
            assertThat(queue.deadLetters(10)).hasSize(1);
            assertThat(queue.requeueAllDead()).isEqualTo(1);
            assertThat(queue.purgeDead()).isZero();
            assertThat(queue.oldestDueAge()).isNotNull();
            try (Jedis admin = server.newConnection()) {
                assertThat(admin.aclLog()).as("commands the ACL denied").isEmpty();
            }
            assertThatThrownBy(() -> app.set("other:x", "1")).hasMessageContaining("NOPERM");
        }
        try (Jedis admin = server.newConnection()) {
            admin.aclDelUser("app");
        }
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
