package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/** {@link Script} against a real redis-server: run by SHA, reloaded after {@code SCRIPT FLUSH}. */
@ExtendWith(RedisExtension.class)
final class ScriptIT {
    private static final Script ECHO_INCR = Script.of("echo_incr.lua", "redis.call('INCR', KEYS[1]) return ARGV[1]");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long noScriptErrors(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            String stats = admin.info("errorstats");
            for (String line : stats.split("\\r?\\n")) {
                if (line.startsWith("errorstat_NOSCRIPT:count=")) {
                    return Long.parseLong(line.substring("errorstat_NOSCRIPT:count=".length()));
                }
            }
            return 0;
        }
    }

    private static void scriptFlush(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            admin.scriptFlush();
        }
    }

    private static boolean cached(RedisServer server, Script script) {
        try (Jedis admin = server.newConnection()) {
            return admin.scriptExists(script.sha());
        }
    }

    @Test
    void run_afterScriptFlush_reloadsTheScriptAndAnswers(RedisServer server, RedisClient redis) {
        assertThat(ECHO_INCR.run(redis, List.of(b("n")), List.of(b("one")))).isEqualTo(b("one"));
        assertThat(cached(server, ECHO_INCR)).isTrue();
        long before = noScriptErrors(server);

        scriptFlush(server);
        assertThat(cached(server, ECHO_INCR)).isFalse();

        assertThat(ECHO_INCR.run(redis, List.of(b("n")), List.of(b("two")))).isEqualTo(b("two"));
        assertThat(noScriptErrors(server)).as("the EVALSHA met NOSCRIPT").isEqualTo(before + 1);
        assertThat(cached(server, ECHO_INCR)).as("EVAL cached the script again").isTrue();
        assertThat(redis.get("n")).as("the script ran once per call").isEqualTo("2");
    }

    @Test
    void pipelinedCalls_afterScriptFlush_areSentAgainByBody(RedisServer server, RedisClient redis) {
        ReplicatedCall calls = new ReplicatedCall(Topology.of(redis), 0, Duration.ZERO);
        ECHO_INCR.preload(redis, b("n"));
        scriptFlush(server);
        long before = noScriptErrors(server);

        ReplicatedCall.Replies replies = calls.runAll(
                ECHO_INCR,
                List.of(List.of(b("n")), List.of(b("n")), List.of(b("n"))),
                List.of(List.of(b("a")), List.of(b("b")), List.of(b("c"))));

        assertThat(replies.replies()).containsExactly(b("a"), b("b"), b("c"));
        assertThat(replies.acked()).as("no WAIT was sent").isEqualTo(Long.MAX_VALUE);
        assertThat(noScriptErrors(server)).isEqualTo(before + 3);
        assertThat(redis.get("n")).as("each call ran exactly once").isEqualTo("3");
    }

    @Test
    void includedNoticeFragment_publishesPlainlyOrSharded(RedisServer server, RedisClient redis) throws Exception {
        Script script = Script.load(
                name -> name.equals("pub.lua")
                        ? new java.io.ByteArrayInputStream(
                                b("--@include notice.lua\nnotice(ARGV[1], KEYS[1], 'hello')\nreturn 1\n"))
                        : null,
                "pub.lua");
        List<String> heard = new CopyOnWriteArrayList<>();
        BinaryJedisPubSub listener = new BinaryJedisPubSub() {
            @Override
            public void onSubscribe(byte[] channel, int subscribedChannels) {
                script.run(redis, List.of(b("{n}:ch")), List.of(b("0")));
            }

            @Override
            public void onMessage(byte[] channel, byte[] message) {
                heard.add(new String(message, StandardCharsets.UTF_8));
                unsubscribe();
            }
        };
        try (Jedis sub = server.newConnection()) {
            sub.subscribe(listener, b("{n}:ch"));
        }
        assertThat(heard).containsExactly("hello");
    }
}
