package io.github.deferlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.LockRunner;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.conflict.Outcome;
import io.github.deferlock.conflict.SleepRetry;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DelayQueue;
import io.github.deferlock.delay.DelayQueueWorker;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.NewJob;
import io.github.deferlock.delay.QueueRateLimit;
import io.github.deferlock.inspect.ConflictView;
import io.github.deferlock.inspect.Inspector;
import io.github.deferlock.lock.DistributedLock;
import io.github.deferlock.lock.DistributedPermits;
import io.github.deferlock.lock.LockConflictException;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Golden-output tests: every command, in text and with {@code --json}, against a real redis-server holding a
 * known workload. Each test runs a transcript of commands and compares it, after normalising times,
 * durations, tokens and fencing counters, with {@code src/test/resources/golden/<test>.txt}. Run with {@code
 * -Dgolden.update=true} to rewrite the files after an intended change, and review the diff.
 */
@ExtendWith(RedisExtension.class)
final class CliGoldenIT {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    /** The host the audit records name ({@code $HOSTNAME} as the tool reads it). */
    private static final String HOST = "golden-host";

    record Msg(String text) {}

    private final StringBuilder transcript = new StringBuilder();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String url;

    @BeforeEach
    void workload(RedisServer server, RedisClient redis) {
        url = "redis://" + server.hostAndPort().getHost() + ":"
                + server.hostAndPort().getPort();
        DelayQueue<Msg> emails = DelayQueue.builder(redis, "emails", Msg.class).build();
        emails.enqueue("e1", new Msg("hello <script>alert(1)</script>"), Duration.ZERO);
        emails.enqueue("e2", new Msg("red \u001b[31malert\u001b[0m"), Duration.ZERO);
        for (int i = 3; i <= 6; i++) {
            emails.enqueue("e" + i, new Msg("m" + i), Duration.ZERO);
        }
        for (Job<Msg> j : emails.claim(2)) { // e1, e2 die
            // error texts are attacker input: a newline and an ANSI colour escape must print escaped
            emails.deadLetter(j, "boom " + j.id() + "\nsecond line" + (j.id().equals("e2") ? " \u001b[31mred" : ""));
        }
        emails.claim(1).get(0).progress(40, "half \u001b[31mdone"); // e3 in flight, its handler reports progress
        emails.enqueueJob(NewJob.of("e7", new Msg("later"), Duration.ofHours(1)).withPriority(3));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** Runs the tool and adds the command, its output, error output and exit code to the transcript. */
    private int run(String... args) {
        List<String> all = new ArrayList<>(List.of("--redis", url, "--timeout", "2000"));
        all.addAll(List.of(args));
        return runRaw(all, args);
    }

    private int runRaw(List<String> all, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err), k -> switch (k) {
            case "HOSTNAME" -> HOST;
            case Main.ACTOR_ENV -> "tester";
            default -> null;
        });
        transcript
                .append("$ deferlock ")
                .append(Text.safe(String.join(" ", args)))
                .append('\n');
        transcript.append(out);
        if (err.getBuffer().length() > 0) {
            transcript.append("[stderr]\n").append(err);
        }
        transcript.append("[exit ").append(code).append("]\n\n");
        return code;
    }

    /** Normalises what changes from run to run, then compares with (or, when updating, writes) the golden file. */
    private void matchesGolden(String name) {
        String actual = normalise(transcript.toString());
        Path file = GOLDEN.resolve(name + ".txt");
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(GOLDEN);
                Files.writeString(file, actual, StandardCharsets.UTF_8);
            }
            assertThat(file)
                    .as("golden file %s (run with -Dgolden.update=true to create it)", file)
                    .exists();
            assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String normalise(String s) {
        return s.replace(System.getProperty("user.name") + "@" + HOST, "<user>@" + HOST)
                .replaceAll("\\b\\d{13}-\\d+\\b", "<entry id>")
                .replaceAll("\\(\\d+\\.\\d\\d/s\\)", "(<rate>/s)")
                .replaceAll("\"(THROW|SLEEP_RETRY|DEFER)\" : \\d+\\.\\d+(E-?\\d+)?", "\"$1\" : <rate>")
                .replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z", "<time>")
                .replaceAll("\\b[0-9a-f]{32}\\b", "<token>")
                .replaceAll("\\b\\d{13,}\\b", "<fence>")
                .replaceAll(
                        "\"(oldestDueAgeMillis|remainingLeaseMillis|windowMillis|oldestParkedAgeMillis)\" : \\d+",
                        "\"$1\" : <ms>")
                .replaceAll("\\b(\\d+(\\.\\d)?(ms|s)|\\d+m\\d\\ds|\\d+h\\d\\dm|\\d+d\\d\\dh)\\b", "<dur>")
                .replaceAll("redis://127\\.0\\.0\\.1:\\d+", "redis://<host>")
                .replaceAll("(?<=\\S) {2,}", "  "); // column widths follow the normalised values
    }

    @Test
    void queues(RedisClient redis) {
        toClose.add(DelayQueueWorker.builder(
                        DelayQueue.builder(redis, "reports", Msg.class).build(), j -> {})
                .build()
                .start());
        toClose.add(RedisLocks.builder(redis).build());
        toClose.add(RedisLocks.builder(redis).keyPrefix("billing:").build());
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.exists("deferlock:registry"));
        DelayQueue.builder(redis, "reports", Msg.class).build().pause(); // STATE: paused
        run("queues");
        run("queues", "--json");
        run("queues", "--lock-prefix", "billing:");
        matchesGolden("queues");
    }

    @Test
    void queueKeys_listsTheConcurrencyKeysWithHeldJobs(RedisClient redis) {
        DelayQueue<Msg> orders = DelayQueue.builder(redis, "orders", Msg.class).build();
        orders.concurrencyKeys().limit(1);
        orders.concurrencyKeys().limit("tenant-b", 2);
        for (int i = 0; i < 4; i++) {
            orders.enqueueJob(NewJob.of(new Msg("a" + i)).withConcurrencyKey("tenant-a"));
        }
        for (int i = 0; i < 3; i++) {
            orders.enqueueJob(NewJob.of(new Msg("b" + i)).withConcurrencyKey("tenant-b"));
        }
        assertThat(orders.claim(10)).hasSize(3); // 1 of tenant-a, 2 of tenant-b; 3 + 1 held
        assertThat(run("queue", "keys", "orders")).isEqualTo(ExitCode.OK);
        run("queue", "keys", "orders", "--json");
        run("queue", "keys", "orders", "--top", "1");
        run("queue", "keys", "emails");
        assertThat(run("queue", "keys", "nothing-here")).isEqualTo(ExitCode.NOT_FOUND);
        run("queue", "stats", "orders"); // the held count, with a pointer to 'queue keys'
        run("queue", "stats", "orders", "--json");
        matchesGolden("queue-keys");
    }

    @Test
    void queuePauseAndResume_areIdempotent_andShowInStats(RedisClient redis) {
        DelayQueue<Msg> emails = DelayQueue.builder(redis, "emails", Msg.class).build();
        assertThat(run("queue", "pause", "emails")).isEqualTo(ExitCode.OK);
        assertThat(emails.isPaused()).isTrue();
        assertThat(emails.claim(10)).isEmpty(); // e4..e6 are due, but the queue is paused
        run("queue", "pause", "emails");
        run("queue", "stats", "emails");
        run("queue", "stats", "emails", "--json");
        assertThat(run("queue", "resume", "emails", "--json")).isEqualTo(ExitCode.OK);
        assertThat(emails.isPaused()).isFalse();
        run("queue", "resume", "emails");
        assertThat(run("queue", "pause", "nothing-here")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(emails.isPaused()).isFalse();
        matchesGolden("queue-pause");
    }

    @Test
    void queueRateLimit_setShowRemove_andShowsInStats(RedisClient redis) {
        DelayQueue<Msg> emails = DelayQueue.builder(redis, "emails", Msg.class).build();
        run("queue", "rate-limit", "emails");
        assertThat(run("queue", "rate-limit", "emails", "100", "1s")).isEqualTo(ExitCode.OK);
        assertThat(emails.rateLimit()).contains(QueueRateLimit.of(100, Duration.ofSeconds(1)));
        run("queue", "rate-limit", "emails", "100", "1s");
        run("queue", "rate-limit", "emails", "10", "1m", "--burst", "3", "--json");
        assertThat(emails.rateLimit()).contains(new QueueRateLimit(10, Duration.ofMinutes(1), 3));
        run("queue", "stats", "emails");
        run("queue", "stats", "emails", "--json");
        assertThat(run("queue", "rate-limit", "emails", "0")).isEqualTo(ExitCode.USAGE);
        assertThat(run("queue", "rate-limit", "emails", "10", "1y")).isEqualTo(ExitCode.USAGE);
        assertThat(run("queue", "rate-limit", "emails", "--remove")).isEqualTo(ExitCode.OK);
        assertThat(emails.rateLimit()).isEmpty();
        run("queue", "rate-limit", "emails", "--remove", "--json");
        assertThat(run("queue", "rate-limit", "nothing-here", "5")).isEqualTo(ExitCode.NOT_FOUND);
        matchesGolden("queue-rate-limit");
    }

    @Test
    void queueStats() {
        run("queue", "stats", "emails");
        run("queue", "stats", "emails", "--json");
        matchesGolden("queue-stats");
    }

    @Test
    void unknownQueue_exits1WithAMessage_whileARegisteredEmptyQueueShowsZeros(RedisClient redis) {
        redis.hset("deferlock:registry", "queue:idle", Long.toString(System.currentTimeMillis()));

        assertThat(run("queue", "stats", "nothing-here")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(run("queue", "stats", "nothing-here", "--json")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(run("dead", "list", "nothing-here")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(run("dead", "list", "nothing-here", "--json")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(run("queue", "stats", "idle")).isEqualTo(ExitCode.OK);
        assertThat(run("dead", "list", "idle")).isEqualTo(ExitCode.OK);
        matchesGolden("unknown-queue");
    }

    @Test
    void deadList() {
        run("dead", "list", "emails");
        run("dead", "list", "emails", "--json");
        run("dead", "list", "emails", "--limit", "1");
        run("dead", "list", "emails", "--offset", "5");
        matchesGolden("dead-list");
    }

    @Test
    void deadRequeueAndPurge(RedisClient redis) {
        assertThat(run("dead", "requeue", "emails", "e1", "e4", "nope")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(redis.zcard("deferlock:dq:{emails}:dead")).isEqualTo(1);
        run("dead", "purge", "emails", "e2", "--json");
        assertThat(redis.hexists("deferlock:dq:{emails}:jobs", "e2")).isFalse();
        run("dead", "purge", "emails", "e1");
        run("dead", "requeue", "emails");
        matchesGolden("dead-requeue-purge");
    }

    @Test
    void deadRequeueAll(RedisClient redis) {
        assertThat(run("dead", "requeue", "emails", "--all")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "requeue", "emails", "--all", "--confirm", "5")).isEqualTo(ExitCode.USAGE);
        assertThat(redis.zcard("deferlock:dq:{emails}:dead"))
                .as("nothing requeued")
                .isEqualTo(2);
        assertThat(run("dead", "requeue", "emails", "--all", "--confirm", "2", "--json"))
                .isEqualTo(ExitCode.OK);
        assertThat(redis.zcard("deferlock:dq:{emails}:dead")).isZero();
        run("dead", "requeue", "emails", "--all", "--confirm", "0");
        matchesGolden("dead-requeue-all");
    }

    @Test
    void audit_recordsEveryChange_andListsThem(RedisClient redis) {
        run("audit");
        run("queue", "pause", "emails");
        run("queue", "pause", "nothing-here");
        run("job", "cancel", "emails", "e4");
        run("dead", "purge", "emails", "e2", "nope");
        run("dead", "requeue", "emails", "--all", "--confirm", "7");
        run("queue", "rate-limit", "emails", "10", "1m");
        run("queue", "rate-limit", "emails"); // shows: not audited
        assertThat(run("audit")).isEqualTo(ExitCode.OK);
        assertThat(redis.xlen(Inspector.AUDIT_KEY)).isEqualTo(6);
        run("audit", "--limit", "2", "--json");
        assertThat(run("audit", "--limit", "0")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "purge", "emails")).isEqualTo(ExitCode.USAGE); // refused before Redis: not audited
        assertThat(redis.xlen(Inspector.AUDIT_KEY)).isEqualTo(6);
        matchesGolden("audit");
    }

    @Test
    void jobGetAndCancel() {
        run("job", "get", "emails", "e1");
        run("job", "get", "emails", "e2", "--json");
        run("job", "get", "emails", "e3");
        run("job", "get", "emails", "e3", "--json");
        run("job", "get", "emails", "e7", "--json");
        assertThat(run("job", "get", "emails", "missing")).isEqualTo(ExitCode.NOT_FOUND);
        run("job", "cancel", "emails", "e4");
        run("job", "cancel", "emails", "e5", "--json");
        assertThat(run("job", "cancel", "emails", "e4")).isEqualTo(ExitCode.NOT_FOUND);
        matchesGolden("job");
    }

    @Test
    void locks(RedisClient redis) throws Exception {
        RedisLocks locks = RedisLocks.builder(redis).build();
        RedisLocks rival = RedisLocks.builder(redis).build();
        toClose.add(rival);
        toClose.add(locks);
        LockLease order = locks.get("order:42").acquire(Duration.ZERO, Duration.ofSeconds(60));
        toClose.add(0, order);
        toClose.add(0, locks.get("odd\nname{}").acquire(Duration.ZERO, Duration.ofSeconds(60)));
        // a permits name (issue 32) in the listing: 2 of its 3 permits held
        toClose.add(0, locks.permits("tenant:7", 3).acquire(Duration.ZERO, Duration.ofSeconds(60)));
        toClose.add(0, locks.permits("tenant:7", 3).acquire(Duration.ZERO, Duration.ofSeconds(60)));
        DistributedLock free = locks.get("free");
        free.lock();
        free.unlock();
        CompletableFuture<Boolean> waiter =
                CompletableFuture.supplyAsync(() -> rival.get("order:42").tryLock(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.get("lock:{order:42}").endsWith("+"));
        // two messages parked behind the held order:42 (ordered DEFER; no worker runs them)
        RedisLocks parker = RedisLocks.builder(redis).build();
        toClose.add(parker);
        Deferrals deferrals =
                Deferrals.builder(redis, "orders").mode(DeferMode.ORDERED).build();
        toClose.add(0, deferrals);
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, parker)
                .key(m -> "order:42")
                .messageId(Msg::text)
                .handler(m -> {})
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        assertThat(handler.handle(new Msg("m1"))).isEqualTo(Outcome.DEFERRED);
        assertThat(handler.handle(new Msg("m2"))).isEqualTo(Outcome.DEFERRED);
        run("locks", "list", "lock:");
        run("locks", "list", "lock:", "--json");
        run("locks", "list", "lock:", "--limit", "2");
        run("locks", "list", "other:");
        run("lock", "show", "order:42");
        run("lock", "show", "free", "--json");
        assertThat(run("lock", "show", "never")).isEqualTo(ExitCode.NOT_FOUND);
        matchesGolden("locks");
        order.close();
        assertThat(waiter.get()).isTrue();
    }

    @Test
    void permits(RedisClient redis) throws Exception {
        RedisLocks locks = RedisLocks.builder(redis).build();
        toClose.add(locks);
        DistributedPermits renders = locks.permits("renders", 3);
        toClose.add(0, renders.acquire(Duration.ZERO, Duration.ofSeconds(60)));
        toClose.add(0, renders.acquire(Duration.ZERO, Duration.ofSeconds(60)));
        renders.acquire(Duration.ZERO).release(); // slot 2 used once, free again
        toClose.add(0, locks.get("a-lock").acquire(Duration.ZERO, Duration.ofSeconds(60)));
        run("lock", "permits", "renders");
        run("lock", "permits", "renders", "--json");
        assertThat(run("lock", "permits", "a-lock")).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(run("lock", "permits", "never")).isEqualTo(ExitCode.NOT_FOUND);
        matchesGolden("permits");
    }

    @Test
    void conflicts(RedisServer server, RedisClient redis) throws Exception {
        RedisClient otherClient = server.newClient();
        RedisLocks mine = RedisLocks.builder(redis).build();
        RedisLocks other = RedisLocks.builder(otherClient).build();
        RedisLocks third = RedisLocks.builder(otherClient).build();
        toClose.add(otherClient);
        toClose.add(0, third);
        toClose.add(0, other);
        toClose.add(0, mine);
        LockLease hot = other.get("order:7").acquire(Duration.ZERO, Duration.ofSeconds(60));
        toClose.add(0, other.get("odd\nname{}").acquire(Duration.ZERO, Duration.ofSeconds(60)));
        LockRunner runner = LockRunner.builder(mine)
                .sleepRetry(new SleepRetry(Backoff.fixed(Duration.ofMillis(5)), 2, Duration.ofSeconds(5)))
                .build();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> runner.withLock("order:7", OnConflict.THROW, () -> {}))
                    .isInstanceOf(LockConflictException.class);
        }
        assertThatThrownBy(() -> runner.withLock("order:7", OnConflict.SLEEP_RETRY, () -> {}))
                .isInstanceOf(LockConflictException.class);
        assertThatThrownBy(() -> runner.withLock("odd\nname{}", OnConflict.THROW, () -> {}))
                .isInstanceOf(LockConflictException.class);
        Deferrals deferrals =
                Deferrals.builder(redis, "deferred").mode(DeferMode.ORDERED).build(); // no worker: parked items stay
        toClose.add(0, deferrals);
        ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, mine)
                .key(m -> "order:7")
                .messageId(Msg::text)
                .handler(m -> {})
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
        for (int i = 0; i < 2; i++) {
            assertThat(handler.handle(new Msg("m" + i))).isEqualTo(Outcome.DEFERRED);
        }
        DistributedLock waiting = third.get("order:7");
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            boolean got = waiting.tryLock(Duration.ofSeconds(30));
            if (got) {
                waiting.unlock();
            }
            return got;
        });
        Inspector inspector = Inspector.builder(redis).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<ConflictView> l = inspector.conflicts("lock:", 2, 10).locks();
            return l.size() == 2
                    && l.get(0).total() == 7
                    && l.get(1).total() == 1
                    && l.get(0).waiters() == 1;
        });
        run("conflicts", "--minutes", "2");
        run("conflicts", "--minutes", "2", "--top", "1", "--json");
        run("conflicts", "--prefix", "other:");
        assertThat(run("conflicts", "--minutes", "16")).isEqualTo(ExitCode.USAGE);
        matchesGolden("conflicts");
        hot.close();
        assertThat(waiter.get()).isTrue();
    }

    @Test
    void badArguments_exitNonZeroWithAMessage() {
        assertThat(run("nonsense")).isEqualTo(ExitCode.USAGE);
        assertThat(run("queue", "stats")).isEqualTo(ExitCode.USAGE);
        assertThat(run("queue", "stats", "a{b")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "list", "emails", "--limit", "0")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "list", "emails", "--limit", "x")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "purge", "emails")).isEqualTo(ExitCode.USAGE);
        assertThat(run("dead", "requeue", "emails", "e1", "--all", "--confirm", "2"))
                .isEqualTo(ExitCode.USAGE);
        assertThat(run("job", "get", "emails", "\uD800")).isEqualTo(ExitCode.USAGE);
        assertThat(run("locks", "list", "a{")).isEqualTo(ExitCode.USAGE);
        String[] http = {"--redis", "http://localhost:1", "queues"};
        assertThat(runRaw(List.of(http), http)).isEqualTo(ExitCode.USAGE);
        String[] closed = {"--redis", "redis://127.0.0.1:1", "--timeout", "500", "queues"};
        assertThat(runRaw(List.of(closed), closed)).isEqualTo(ExitCode.REDIS);
        String[] twice = {"--json", "--json", "queues"};
        assertThat(run(twice)).isEqualTo(ExitCode.USAGE);
        matchesGolden("bad-arguments");
    }

    @Test
    void help_onEveryCommand_exitsZero() {
        String[][] commands = {
            {},
            {"queues"},
            {"queue"},
            {"queue", "stats"},
            {"queue", "pause"},
            {"queue", "resume"},
            {"queue", "rate-limit"},
            {"dead"},
            {"dead", "list"},
            {"dead", "requeue"},
            {"dead", "purge"},
            {"job"},
            {"job", "get"},
            {"job", "cancel"},
            {"locks"},
            {"locks", "list"},
            {"lock"},
            {"lock", "show"},
            {"audit"}
        };
        for (String[] c : commands) {
            List<String> args = new ArrayList<>(List.of(c));
            args.add("--help");
            StringWriter out = new StringWriter();
            int code = Main.run(
                    args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(new StringWriter()), k -> null);
            assertThat(code).as(String.join(" ", c)).isZero();
            assertThat(out.toString())
                    .as(String.join(" ", c))
                    .startsWith(("Usage: deferlock " + String.join(" ", c)).trim() + " ");
        }
    }
}
