package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Ordered DEFER ({@link DeferMode#ORDERED}, the default) against a real redis-server: a key's deferred messages
 * park behind it, run after the release in arrival order, and survive a SIGKILL of their runner.
 */
@ExtendWith(RedisExtension.class)
final class OrderedDeferIT {

    private static final Duration LONG = Duration.ofSeconds(60);

    /** Holds the keys given after the port for the given milliseconds, in another JVM; prints HELD and RELEASED. */
    public static final class HolderMain {
        public static void main(String[] args) throws Exception {
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            long holdMillis = Long.parseLong(args[1]);
            try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build()) {
                List<LockLease> held = new ArrayList<>();
                for (int i = 2; i < args.length; i++) {
                    held.add(locks.get(args[i]).acquire(Duration.ZERO, Duration.ofSeconds(60)));
                }
                System.out.println("HELD");
                System.out.flush();
                Thread.sleep(holdMillis); // the hold itself: the other side waits for RELEASED, not for time
                held.forEach(LockLease::close);
                System.out.println("RELEASED");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }

    /** Drains parked "seq" messages (worker only); prints RAN id, and hangs in the handler of an id "stall". */
    public static final class DrainWorkerMain {
        public static void main(String[] args) throws Exception {
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            // a short lease: the key its killed runner held is free again after it, not after the default 30 s
            RedisLocks locks = RedisLocks.builder(redis)
                    .keyPrefix("o:")
                    .defaultLease(Duration.ofSeconds(2))
                    .build();
            Deferrals deferrals = deferralsOf(redis, args[1]);
            ConflictAwareHandler.builder("seq", Msg.class, locks)
                    .key(m -> "k:" + m.order())
                    .messageId(Msg::id)
                    .handler(m -> {
                        System.out.println("RAN " + m.id());
                        System.out.flush();
                        if (m.id().equals("stall")) {
                            Thread.sleep(Long.MAX_VALUE); // the test SIGKILLs this process here
                        }
                    })
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(1);
            System.out.println("READY");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** The crash test's deferrals: a 2 s visibility timeout and drain wait, so recovery is quick. */
    static Deferrals deferralsOf(RedisClient redis, String queue) {
        return Deferrals.builder(redis, queue)
                .mode(DeferMode.ORDERED)
                .visibilityTimeout(Duration.ofSeconds(2))
                .drainWait(Duration.ofSeconds(2))
                .build();
    }

    private RedisLocks locks;
    private RedisClient holderClient;
    private RedisLocks holder;

    @BeforeEach
    void setUp(RedisServer server, RedisClient redis) {
        locks = RedisLocks.builder(redis).keyPrefix("o:").build();
        holderClient = server.newClient();
        holder = RedisLocks.builder(holderClient).keyPrefix("o:").build();
    }

    @AfterEach
    void tearDown() {
        holder.close();
        holderClient.close();
        locks.close();
    }

    /** Counts first deferrals (parked) and re-deferrals (deferral number above 1). */
    private static final class Deferred implements ConflictListener {
        final AtomicInteger first = new AtomicInteger();
        final AtomicInteger again = new AtomicInteger();

        @Override
        public void onDeferred(String key, int deferrals, Duration delay) {
            (deferrals == 1 ? first : again).incrementAndGet();
        }
    }

    private ConflictAwareHandler<Msg> seqHandler(
            String name, Deferrals deferrals, MessageHandler<Msg> body, ConflictListener listener) {
        return ConflictAwareHandler.builder(name, Msg.class, locks)
                .key(m -> "k:" + m.order())
                .messageId(Msg::id)
                .handler(body)
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .listener(listener)
                .build();
    }

    @Test
    void hotKeysHeldByAnotherJvm_everyKeyRunsInArrivalOrder_withoutReDeferrals(RedisServer server, RedisClient redis)
            throws Exception {
        int keys = 20;
        int perKey = 30;
        Map<String, List<Integer>> ran = new ConcurrentHashMap<>();
        Deferred deferred = new Deferred();
        try (Deferrals deferrals = Deferrals.builder(redis, "ordered")
                        .mode(DeferMode.ORDERED)
                        .build();
                JvmProcess other = JvmProcess.start(
                        HolderMain.class, Integer.toString(server.port()), "3000", "k:0", "k:1", "k:2")) {
            ConflictAwareHandler<Msg> handler = seqHandler(
                    "seq",
                    deferrals,
                    m -> ran.computeIfAbsent(m.order(), k -> new CopyOnWriteArrayList<>())
                            .add(Integer.parseInt(m.id().substring(m.id().indexOf('-') + 1))),
                    deferred);
            deferrals.startWorker(4);
            other.awaitLine("HELD", LONG);
            // one consumer thread delivers each key's messages in order; half while the hot keys are held ...
            int sent = 0;
            for (int i = 0; i < perKey / 2; i++) {
                for (int k = 0; k < keys; k++) {
                    handler.handle(new Msg(k + "-" + i, Integer.toString(k)));
                    sent++;
                }
            }
            other.awaitLine("RELEASED", LONG);
            // ... and half after the release, while the parked ones drain: they must park behind them
            for (int i = perKey / 2; i < perKey; i++) {
                for (int k = 0; k < keys; k++) {
                    handler.handle(new Msg(k + "-" + i, Integer.toString(k)));
                    sent++;
                }
            }
            int total = sent;
            await().atMost(LONG)
                    .until(() -> ran.values().stream().mapToInt(List::size).sum() >= total);
            for (int k = 0; k < keys; k++) {
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < perKey; i++) {
                    expected.add(i);
                }
                assertThat(ran.get(Integer.toString(k)))
                        .as("key %d: every message once, in arrival order (0 inversions)", k)
                        .containsExactlyElementsOf(expected);
            }
            System.out.printf(
                    "ordered DEFER, 3 of %d keys held 3 s by another JVM: %d parked, %d re-deferrals%n",
                    keys, deferred.first.get(), deferred.again.get());
            assertThat(deferred.first.get())
                    .as("the hot keys' messages were parked")
                    .isGreaterThanOrEqualTo(3 * perKey / 2);
            assertThat(deferred.again.get())
                    .as("re-deferrals (%d deferred items): at most 0.05 per deferred item", deferred.first.get())
                    .isLessThanOrEqualTo(deferred.first.get() / 20);
            await().atMost(LONG)
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(redis.keys("o:*parked*")).as("nothing left parked").isEmpty();
        }
    }

    @Test
    void newMessage_whileWorkIsParked_parksBehindIt_evenWhenTheKeyIsFree(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals =
                Deferrals.builder(redis, "behind").mode(DeferMode.ORDERED).build()) {
            ConflictAwareHandler<Msg> handler =
                    seqHandler("seq", deferrals, m -> ran.add(m.id()), new ConflictListener() {});
            LockLease hold = holder.get("k:7").acquire(Duration.ZERO, LONG);
            assertThat(handler.handle(new Msg("a", "7"))).isEqualTo(Outcome.DEFERRED);
            hold.close(); // the key is free now, and no worker runs yet: "a" is still parked
            assertThat(handler.handle(new Msg("b", "7")))
                    .as("b must not overtake the parked a")
                    .isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("x", "8")))
                    .as("another key is not affected")
                    .isEqualTo(Outcome.PROCESSED);
            deferrals.startWorker(2);
            await().atMost(LONG).until(() -> ran.size() == 3);
            assertThat(ran).containsExactly("x", "a", "b");
            assertThat(handler.handle(new Msg("c", "7")))
                    .as("with nothing parked the key is taken at once again")
                    .isEqualTo(Outcome.PROCESSED);
        }
    }

    @Test
    void redeliveredMessage_isParkedOnce_andRunsOnce(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals =
                Deferrals.builder(redis, "redelivered").mode(DeferMode.ORDERED).build()) {
            ConflictAwareHandler<Msg> handler =
                    seqHandler("seq", deferrals, m -> ran.add(m.id()), new ConflictListener() {});
            LockLease hold = holder.get("k:4").acquire(Duration.ZERO, LONG);
            assertThat(handler.handle(new Msg("a", "4"))).isEqualTo(Outcome.DEFERRED);
            // the caller died before committing "a": its source delivers it again, after "b"
            assertThat(handler.handle(new Msg("b", "4"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("a", "4"))).isEqualTo(Outcome.DEFERRED);
            assertThat(redis.llen("o:{k:4}:parked")).as("a is parked once").isEqualTo(2);
            hold.close();
            deferrals.startWorker(1);
            await().atMost(LONG).until(() -> ran.size() == 2);
            assertThat(handler.handle(new Msg("a", "4")))
                    .as("a third copy after it ran is a duplicate")
                    .isEqualTo(Outcome.DUPLICATE);
            assertThat(ran).containsExactly("a", "b");
        }
    }

    @Test
    void runnerOfTheParkedHeadKilled_headRunsAgainAfterTheVisibilityTimeout_noneLost(
            RedisServer server, RedisClient redis) throws Exception {
        List<String> ranHere = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = deferralsOf(redis, "crash");
                JvmProcess worker = JvmProcess.start(DrainWorkerMain.class, Integer.toString(server.port()), "crash")) {
            ConflictAwareHandler<Msg> handler =
                    seqHandler("seq", deferrals, m -> ranHere.add(m.id()), new ConflictListener() {});
            worker.awaitLine("READY", LONG);
            LockLease hold = holder.get("k:5").acquire(Duration.ZERO, LONG);
            List<String> ids = List.of("stall", "m1", "m2", "m3", "m4");
            for (String id : ids) {
                assertThat(handler.handle(new Msg(id, "5"))).isEqualTo(Outcome.DEFERRED);
            }
            hold.close();
            worker.awaitLine("RAN stall", LONG); // the other JVM runs the head ...
            worker.kill(); // ... and dies in its handler (SIGKILL)
            assertThat(worker.output()).noneMatch(l -> l.equals("RAN m1"));

            deferrals.startWorker(1);
            await().atMost(LONG).until(() -> ranHere.size() == ids.size());
            assertThat(ranHere)
                    .as("the head runs again (at least once), then the rest in order; none lost")
                    .containsExactlyElementsOf(ids);
            await().atMost(LONG)
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
        }
    }

    @Test
    void capOverflow_throwsByDefault_andNothingIsStored(RedisClient redis) {
        try (Deferrals deferrals = Deferrals.builder(redis, "capped")
                .mode(DeferMode.ORDERED)
                .maxParked(3)
                .build()) {
            ConflictAwareHandler<Msg> handler = seqHandler("seq", deferrals, m -> {}, new ConflictListener() {});
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, LONG);
            for (int i = 0; i < 3; i++) {
                assertThat(handler.handle(new Msg("m" + i, "1"))).isEqualTo(Outcome.DEFERRED);
            }
            assertThatThrownBy(() -> handler.handle(new Msg("m3", "1")))
                    .isInstanceOf(ParkedLimitException.class)
                    .hasMessageContaining("'k:1'")
                    .hasMessageContaining("maxParked 3")
                    .satisfies(
                            e -> assertThat(((ParkedLimitException) e).limit()).isEqualTo(3));
            assertThat(redis.llen("o:{k:1}:parked")).isEqualTo(3);
            hold.close();
        }
    }

    @Test
    void capOverflow_withDeadLetter_storesTheMessageAsADeadLetterWithItsReason(RedisClient redis) {
        try (Deferrals deferrals = Deferrals.builder(redis, "capped-dl")
                .mode(DeferMode.ORDERED)
                .maxParked(2)
                .onParkedOverflow(ParkedOverflow.DEAD_LETTER)
                .drainWait(Duration.ofMillis(200))
                .build()) {
            List<String> ran = new CopyOnWriteArrayList<>();
            ConflictAwareHandler<Msg> handler =
                    seqHandler("seq", deferrals, m -> ran.add(m.id()), new ConflictListener() {});
            LockLease hold = holder.get("k:2").acquire(Duration.ZERO, LONG);
            assertThat(handler.handle(new Msg("a", "2"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("b", "2"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("c", "2"))).isEqualTo(Outcome.DEFERRED);
            deferrals.startWorker(1);
            await().atMost(LONG).until(() -> deferrals.queue().size(JobState.DEAD) == 1);
            DeadLetter dead = deferrals.queue().deadLetters().list(10).get(0);
            assertThat(DeadLetterReason.of(dead.reason())).contains(DeadLetterReason.PARKED_LIMIT);
            assertThat(dead.reason()).contains("'k:2'").contains("maxParked 2");
            hold.close();
            await().atMost(LONG).until(() -> ran.size() == 2);
            assertThat(ran).containsExactly("a", "b");
        }
    }

    @Test
    void poisonHead_usesItsAttemptsWithTheBackoff_thenDeadLetters_andTheKeyGoesOn(RedisClient redis) {
        AtomicInteger poisonRuns = new AtomicInteger();
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = Deferrals.builder(redis, "poison")
                .mode(DeferMode.ORDERED)
                .maxAttempts(3)
                .backoff(Backoff.fixed(Duration.ofMillis(50)))
                .build()) {
            ConflictAwareHandler<Msg> handler = seqHandler(
                    "seq",
                    deferrals,
                    m -> {
                        if (m.id().equals("poison")) {
                            poisonRuns.incrementAndGet();
                            throw new IllegalStateException("cannot apply " + m.id());
                        }
                        ran.add(m.id());
                    },
                    new ConflictListener() {});
            LockLease hold = holder.get("k:3").acquire(Duration.ZERO, LONG);
            for (String id : List.of("poison", "a", "b")) {
                assertThat(handler.handle(new Msg(id, "3"))).isEqualTo(Outcome.DEFERRED);
            }
            deferrals.startWorker(1);
            hold.close();
            await().atMost(LONG).until(() -> ran.size() == 2);
            assertThat(ran).containsExactly("a", "b");
            assertThat(poisonRuns.get()).as("its attempts, no more").isEqualTo(3);
            await().atMost(LONG).until(() -> deferrals.queue().size(JobState.DEAD) == 1);
            DeadLetter dead = deferrals.queue().deadLetters().list(10).get(0);
            assertThat(DeadLetterReason.of(dead.reason())).contains(DeadLetterReason.HANDLER_FAILED);
            assertThat(dead.reason()).contains("attempt 3 of 3").contains("cannot apply poison");
            assertThat(handler.handle(new Msg("c", "3"))).isEqualTo(Outcome.PROCESSED);
        }
    }
}
