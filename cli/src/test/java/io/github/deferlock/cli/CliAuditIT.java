package io.github.deferlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.inspect.AuditRecord;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The audit of the commands that change state (docs/ops.md, "Audit") against a real redis-server: who and
 * where, and what happens when the audit stream cannot be written. The transcripts of every audited command
 * are in {@link CliGoldenIT}.
 */
@ExtendWith(RedisExtension.class)
final class CliAuditIT {

    record Msg(String text) {}

    private record Result(int code, String out, String err) {}

    private String host;
    private int port;

    @BeforeEach
    void queue(RedisServer server, RedisClient redis) {
        host = server.hostAndPort().getHost();
        port = server.hostAndPort().getPort();
        DelayQueue.builder(redis, "emails", Msg.class).build().enqueue("e1", new Msg("m"), Duration.ZERO);
    }

    private Result run(String user, Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of(
                "--redis", "redis://" + (user == null ? "" : user + "@") + host + ":" + port, "--timeout", "2000"));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err), env::get);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void actor_isTheOsUser_unlessNamed_andFromIsUserAtHost(RedisClient redis) {
        String me = System.getProperty("user.name");
        assertThat(run(null, Map.of("HOSTNAME", "ops-box"), "queue", "pause", "emails")
                        .code())
                .isZero();
        assertThat(run(null, Map.of("HOSTNAME", "ops-box", Main.ACTOR_ENV, "runbook-7"), "queue", "resume", "emails")
                        .code())
                .isZero();
        Result named = run(
                null,
                Map.of("HOSTNAME", "ops-box", Main.ACTOR_ENV, "runbook-7"),
                "--actor",
                "alice",
                "queue",
                "pause",
                "emails");
        assertThat(named.code()).isZero();
        assertThat(named.err())
                .isEqualTo(
                        "audit: action=pause actor=alice from=" + me + "@ops-box queue=emails ids=[] outcome=done\n");

        List<AuditRecord> records = Inspector.builder(redis).build().auditTrail(10);
        assertThat(records)
                .extracting(AuditRecord::source, AuditRecord::actor, AuditRecord::from, AuditRecord::action)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("cli", "alice", me + "@ops-box", "pause"),
                        org.assertj.core.groups.Tuple.tuple("cli", "runbook-7", me + "@ops-box", "resume"),
                        org.assertj.core.groups.Tuple.tuple("cli", me, me + "@ops-box", "pause"));
    }

    @Test
    void badActor_isRefusedBeforeAnythingChanges(RedisClient redis) {
        Result blank = run(null, Map.of(), "--actor", " ", "queue", "pause", "emails");
        assertThat(blank.code()).isEqualTo(ExitCode.USAGE);
        assertThat(blank.err()).startsWith("deferlock: --actor must be 1 to 100 characters");
        Result tooLong = run(null, Map.of(Main.ACTOR_ENV, "x".repeat(101)), "job", "cancel", "emails", "e1");
        assertThat(tooLong.code()).isEqualTo(ExitCode.USAGE);
        assertThat(tooLong.err()).startsWith("deferlock: $DEFERLOCK_ACTOR must be 1 to 100 characters");
        assertThat(DelayQueue.builder(redis, "emails", Msg.class).build().isPaused())
                .isFalse();
        assertThat(redis.exists("deferlock:dq:{emails}:jobs")).isTrue();
        assertThat(redis.exists(Inspector.AUDIT_KEY)).isFalse();
    }

    @Test
    void auditStreamRefused_theActionStands_aWarningSaysSo_andTheExitCodeIs5(RedisServer server, RedisClient redis) {
        try (Jedis admin = server.newConnection()) {
            // an ACL that covers the queue keys but not deferlock:audit
            admin.aclSetUser(
                    "ops",
                    "reset",
                    "on",
                    ">pa55-Secret",
                    "~deferlock:dq:*",
                    "~deferlock:registry",
                    "resetchannels",
                    "&deferlock:*",
                    "+@all",
                    "-@admin",
                    "-@dangerous");
        }
        try {
            Map<String, String> env = Map.of(Main.REDIS_PASSWORD_ENV, "pa55-Secret", "HOSTNAME", "h");
            Result pause = run("ops", env, "queue", "pause", "emails");
            assertThat(pause.code()).as(pause.err()).isEqualTo(ExitCode.AUDIT);
            assertThat(pause.out()).isEqualTo("paused queue 'emails'\n");
            assertThat(pause.err())
                    .contains("audit: action=pause actor=")
                    .contains("deferlock: warning: the audit record above was not written to Redis (deferlock:audit):")
                    .contains("NOPERM")
                    .contains("the command's own result stands");
            assertThat(DelayQueue.builder(redis, "emails", Msg.class).build().isPaused())
                    .isTrue();

            Result missing = run("ops", env, "job", "cancel", "emails", "nope");
            assertThat(missing.code()).as("a failed command keeps its own code").isEqualTo(ExitCode.NOT_FOUND);
            assertThat(missing.err()).contains("has no job 'nope'").contains("warning: the audit record");

            for (Result r : List.of(pause, missing)) {
                assertThat(r.out() + r.err()).doesNotContain("pa55").doesNotContain("Secret");
            }
            assertThat(redis.exists(Inspector.AUDIT_KEY)).isFalse();
        } finally {
            try (Jedis admin = server.newConnection()) {
                admin.aclDelUser("ops");
            }
        }
    }
}
