package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

/**
 * Ordered DEFER when a party dies (issue 27, "Crash safety"): the process parking a message SIGKILLed at each
 * step of the park, the lock holder SIGKILLed while work is parked behind it, and Redis SIGKILLed and restarted
 * with AOF {@code always} while messages park. A message whose handling returned, or that its source delivers
 * again after a failed handling (as a broker redelivers an unacknowledged message), runs exactly once, in its
 * key's order. docs/lock-keys.md "Parked work" says which fault leaves what.
 */
@ExtendWith(RedisExtension.class)
final class OrderedDeferCrashIT {

    private static final Duration LONG = Duration.ofSeconds(60);

    /**
     * Parks as {@code ConflictAwareHandler} does, step by step, and stops at a different step for each key; then
     * holds {@code k:holder} with a 2 s lease and prints PARKED, and the test SIGKILLs it:
     *
     * <ul>
     *   <li>{@code k:token}: its drain token is enqueued, park.lua never ran;
     *   <li>{@code k:parked}: token enqueued and park.lua ran (the token is the key's drainer), no reply used;
     *   <li>{@code k:other}: token enqueued, park.lua ran and named another drainer, the token was never
     *       cancelled.
     * </ul>
     */
    public static final class ParkerMain {
        public static void main(String[] args) throws Exception {
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            RedisLocks locks = RedisLocks.builder(redis)
                    .keyPrefix("o:")
                    .defaultLease(Duration.ofSeconds(2))
                    .build();
            Deferrals deferrals = deferralsOf(redis);
            parkSteps(deferrals, locks, "k:token", "a", false);
            parkSteps(deferrals, locks, "k:parked", "a", true);
            parkSteps(deferrals, locks, "k:other", "a", true);
            LockLease held = locks.get("k:holder").acquire(Duration.ZERO); // 2 s lease, renewed until the kill
            System.out.println("PARKED " + held.fencingToken());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE); // SIGKILLed here: its hold of k:holder renews until then
        }
    }

    /** The first steps of a park of message {@code id} of handler "seq" behind {@code key}. */
    static void parkSteps(Deferrals deferrals, RedisLocks locks, String key, String id, boolean runParkLua)
            throws Exception {
        ObjectMapper mapper = deferrals.mapper();
        String token = UUID.randomUUID().toString();
        deferrals
                .queue()
                .enqueue("drain:" + token, DeferredMessage.drain("seq", key, token, Instant.now()), Duration.ZERO);
        if (runParkLua) {
            DeferredMessage dm = DeferredMessage.first(
                    "seq",
                    key,
                    key.substring(2) + "-" + id,
                    mapper.valueToTree(new Msg(id, key.substring(2))),
                    Instant.now());
            Parking parking = ((RedisLock) locks.get(key)).parking();
            parking.park(
                    Names.pair("seq", key.substring(2) + "-" + id),
                    mapper.writeValueAsString(dm),
                    deferrals.maxParked(),
                    token,
                    deferrals.drainerLeaseMillis());
        }
    }

    /** Short visibility timeout and drain wait: a dead party's work is taken over within seconds. */
    static Deferrals deferralsOf(RedisClient redis) {
        return Deferrals.builder(redis, "crash")
                .mode(DeferMode.ORDERED)
                .visibilityTimeout(Duration.ofSeconds(2))
                .drainWait(Duration.ofSeconds(2))
                .build();
    }

    private static ConflictAwareHandler<Msg> seq(RedisLocks locks, Deferrals deferrals, List<String> ran) {
        return ConflictAwareHandler.builder("seq", Msg.class, locks)
                .key(m -> "k:" + m.order())
                .messageId(m -> m.order() + "-" + m.id()) // a message id is unique across keys
                .handler(m -> ran.add(m.order() + "/" + m.id()))
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    /** Waits for {@code done}; on a timeout, fails naming what ran and what is still parked. */
    private static void awaitOrExplain(
            java.util.concurrent.Callable<Boolean> done, String what, List<String> ran, RedisClient redis) {
        try {
            await().atMost(LONG).until(done);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            StringBuilder parked = new StringBuilder();
            for (String key : redis.keys("o:*parked")) {
                parked.append(key).append('=').append(redis.lrange(key, 0, -1)).append(' ');
            }
            for (String key : redis.keys("o:*drainer")) {
                parked.append(key)
                        .append('=')
                        .append(redis.get(key))
                        .append(" pttl ")
                        .append(redis.pttl(key));
            }
            throw new AssertionError(what + " within " + LONG + "; ran " + ran + "; parked: " + parked, e);
        }
    }

    @Test
    void parkerAndHolderSigkilled_atEachStepOfThePark_everyMessageRunsOnce_inItsKeysOrder(
            RedisServer server, RedisClient redis) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build();
                Deferrals deferrals = deferralsOf(redis)) {
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, ran);
            // k:other already has a drainer: "z" parks first, behind a hold of this test's
            LockLease otherHold = locks.get("k:other").acquire(Duration.ZERO, LONG);
            Thread parkZ = new Thread(() -> handler.handle(new Msg("z", "other")));
            parkZ.start();
            parkZ.join();
            try (JvmProcess parker = JvmProcess.start(ParkerMain.class, Integer.toString(server.port()))) {
                parker.awaitLine(l -> l.startsWith("PARKED"), LONG);
                parker.kill(); // SIGKILL: a parker at three different steps, and the holder of k:holder
            }
            // the source delivers again what the dead parker never acknowledged; and new messages come
            for (String key : List.of("token", "parked", "other")) {
                handler.handle(new Msg("a", key)); // k:token is free and has nothing parked: "a" runs at once
                handler.handle(new Msg("b", key));
            }
            assertThat(handler.handle(new Msg("h1", "holder")))
                    .as("k:holder is still held by the dead process (its lease runs out)")
                    .isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("h2", "holder"))).isEqualTo(Outcome.DEFERRED);
            otherHold.close();
            deferrals.startWorker(2);
            List<String> expected = List.of(
                    "token/a",
                    "token/b",
                    "parked/a",
                    "parked/b",
                    "other/z",
                    "other/a",
                    "other/b",
                    "holder/h1",
                    "holder/h2");
            awaitOrExplain(() -> ran.containsAll(expected), "every message ran", ran, redis);
            Map<String, List<String>> perKey = new ConcurrentHashMap<>();
            for (String r : ran) {
                perKey.computeIfAbsent(r.substring(0, r.indexOf('/')), k -> new ArrayList<>())
                        .add(r.substring(r.indexOf('/') + 1));
            }
            assertThat(perKey)
                    .as("each message ran once, in its key's arrival order")
                    .containsEntry("token", List.of("a", "b"))
                    .containsEntry("parked", List.of("a", "b"))
                    .containsEntry("other", List.of("z", "a", "b"))
                    .containsEntry("holder", List.of("h1", "h2"));
            await().atMost(LONG)
                    .alias("the dead parker's tokens end (one drainer lease at most): none left in the queue")
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
            assertThat(ran).as("nothing ran twice").hasSize(expected.size());
        }
    }

    @Test
    void redisSigkilledAndRestartedWithAofAlways_whileMessagesPark_noneLost_orderKept() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (RedisServer server = RedisServer.builder()
                        .appendOnly(true)
                        .appendFsync("always")
                        .start();
                RedisClient redis = server.newClient();
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("o:").build();
                RedisLocks holder = RedisLocks.builder(redis)
                        .keyPrefix("o:")
                        .defaultLease(Duration.ofSeconds(3))
                        .build();
                Deferrals deferrals = deferralsOf(redis)) {
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, ran);
            int keys = 5;
            int perKey = 20;
            List<LockLease> holds = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                holds.add(holder.get("k:" + k).acquire(Duration.ZERO)); // 3 s lease, renewed
            }
            int failed = 0;
            for (int i = 0; i < perKey; i++) {
                if (i == perKey / 2) {
                    server.kill(); // SIGKILL while messages park: AOF always has every acknowledged write
                    server.restart();
                }
                for (int k = 0; k < keys; k++) {
                    Msg m = new Msg("m" + i, Integer.toString(k));
                    while (true) { // the source delivers a message again until its handling returns
                        try {
                            assertThat(handler.handle(m)).isEqualTo(Outcome.DEFERRED);
                            break;
                        } catch (RuntimeException redisGoneOrRestarting) {
                            failed++;
                            Thread.sleep(50); // the source's redelivery delay
                        }
                    }
                }
            }
            for (LockLease h : holds) {
                try {
                    h.close();
                } catch (RuntimeException lostAcrossTheRestart) {
                    // a hold whose renewal met the restart may be lost: its key is freed by its lease
                }
            }
            deferrals.startWorker(2);
            awaitOrExplain(() -> ran.size() >= keys * perKey, "every message ran", ran, redis);
            for (int k = 0; k < keys; k++) {
                String key = Integer.toString(k);
                List<String> order = ran.stream()
                        .filter(r -> r.startsWith(key + "/"))
                        .map(r -> r.substring(r.indexOf('/') + 1))
                        .toList();
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < perKey; i++) {
                    expected.add("m" + i);
                }
                assertThat(order)
                        .as(
                                "key %s: every message once, in arrival order (%d handlings failed while Redis was down)",
                                key, failed)
                        .containsExactlyElementsOf(expected);
            }
            assertThat(deferrals.queue().size(JobState.DEAD)).isZero();
        }
    }
}
