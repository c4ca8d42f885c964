package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * How a drain token runs a key's parked messages after the release (docs/lock-keys.md, "Draining"): one after
 * another while holding the key, each with its own rising fencing token, without a release and an acquisition
 * between two of them while no other process waits for the key; and a process that does queue for the key gets it
 * between two parked messages, not after the whole drain.
 */
@ExtendWith(RedisExtension.class)
final class OrderedDrainIT {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final int ITEMS = 60;

    private RedisLocks locks;
    private RedisClient holderClient;
    private RedisLocks holder;

    @BeforeEach
    void setUp(RedisServer server, RedisClient redis) {
        locks = RedisLocks.builder(redis).keyPrefix("d:").build();
        holderClient = server.newClient();
        holder = RedisLocks.builder(holderClient).keyPrefix("d:").build();
    }

    @AfterEach
    void tearDown() {
        holder.close();
        holderClient.close();
        locks.close();
    }

    /** One parked message's run: its order in the key and the fencing token it ran with. */
    private record Ran(int seq, long fencingToken) {}

    private ConflictAwareHandler<Msg> handler(Deferrals deferrals, List<Ran> ran, Duration handlerTime) {
        return ConflictAwareHandler.builder("drain", Msg.class, locks)
                .key(m -> "hot")
                .messageId(Msg::id)
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .contextHandler((Msg m, MessageContext ctx) -> {
                    if (!handlerTime.isZero()) {
                        Thread.sleep(handlerTime.toMillis());
                    }
                    ran.add(new Ran(Integer.parseInt(m.id()), ctx.fencingToken()));
                })
                .build();
    }

    /** Parks {@link #ITEMS} messages behind "hot", held by the other client, and waits until the drain is queued. */
    private LockLease parkBehindHeldKey(ConflictAwareHandler<Msg> handler, Deferrals deferrals, RedisClient redis) {
        LockLease hold = holder.get("hot").acquire(Duration.ZERO, LONG);
        for (int i = 0; i < ITEMS; i++) {
            assertThat(handler.handle(new Msg(Integer.toString(i), "hot"))).isEqualTo(Outcome.DEFERRED);
        }
        deferrals.startWorker(1);
        await().atMost(LONG).until(() -> redis.llen("d:{hot}:waiters") > 0); // the drain token waits for the key
        return hold;
    }

    @Test
    void drainWithNobodyElseWaiting_keepsTheKeyBetweenItems_eachWithItsOwnRisingFencingToken(
            RedisServer server, RedisClient redis) throws Exception {
        List<Ran> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = Deferrals.builder(redis, "drain-keep").build()) {
            ConflictAwareHandler<Msg> handler = handler(deferrals, ran, Duration.ZERO);
            LockLease hold = parkBehindHeldKey(handler, deferrals, redis);
            long scriptsBefore = scriptCalls(server);
            long releasesBefore = calls(server, "cmdstat_publish", "cmdstat_spublish");
            hold.close();
            await().atMost(LONG).until(() -> ran.size() >= ITEMS);
            long scripts = scriptCalls(server) - scriptsBefore;

            List<Integer> order = new ArrayList<>();
            ran.forEach(r -> order.add(r.seq()));
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < ITEMS; i++) {
                expected.add(i);
            }
            assertThat(order).as("every parked message once, in arrival order").containsExactlyElementsOf(expected);
            for (int i = 1; i < ran.size(); i++) {
                assertThat(ran.get(i).fencingToken())
                        .as("message %d runs with a fencing token above the one before it", i)
                        .isGreaterThan(ran.get(i - 1).fencingToken());
            }
            assertThat(ran.get(0).fencingToken())
                    .as("the first parked message's token is above the holder's")
                    .isGreaterThan(hold.fencingToken());
            System.out.printf(
                    "drain of %d parked messages, nobody else waiting: %d scripts (%.2f per message)%n",
                    ITEMS, scripts, scripts / (double) ITEMS);
            // before: an acquisition, two looks (drain.lua, pop.lua) and a release per message, 4 scripts each
            assertThat(scripts / (double) ITEMS)
                    .as("scripts per drained message (the worker's own queue calls included)")
                    .isLessThan(1.5);
            assertThat(calls(server, "cmdstat_publish", "cmdstat_spublish") - releasesBefore)
                    .as("release notices: the key was not released to a waiter between two messages")
                    .isLessThanOrEqualTo(1);
        }
    }

    @Test
    void aProcessThatQueuesForTheKeyDuringTheDrain_getsItBetweenTwoParkedMessages(RedisClient redis) throws Exception {
        List<Ran> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = Deferrals.builder(redis, "drain-fair").build()) {
            ConflictAwareHandler<Msg> handler = handler(deferrals, ran, Duration.ofMillis(20));
            LockLease hold = parkBehindHeldKey(handler, deferrals, redis);
            hold.close();
            await().atMost(LONG).until(() -> ran.size() >= 3); // the drain runs, holding the key
            AtomicLong ranBefore = new AtomicLong();
            long token;
            long waited = System.nanoTime();
            try (LockLease other = holder.get("hot").acquire(LONG)) { // queues behind the drain
                waited = System.nanoTime() - waited;
                ranBefore.set(ran.size());
                token = other.fencingToken();
            }
            System.out.printf(
                    "another process queued during the drain got the key after %d ms, %d of %d messages run%n",
                    waited / 1_000_000, ranBefore.get(), ITEMS);
            assertThat(ranBefore.get())
                    .as("the other process got the key before the drain ended (%d ms)", waited / 1_000_000)
                    .isLessThan(ITEMS);
            await().atMost(LONG).until(() -> ran.size() >= ITEMS);
            long last = 0;
            for (int i = 0; i < ran.size(); i++) {
                assertThat(ran.get(i).seq()).as("arrival order").isEqualTo(i);
                assertThat(ran.get(i).fencingToken()).isGreaterThan(last);
                last = ran.get(i).fencingToken();
                if (i == ranBefore.get()) {
                    assertThat(ran.get(i).fencingToken())
                            .as("the first message after the other process's hold runs with a larger token")
                            .isGreaterThan(token);
                }
            }
        }
    }

    private static long scriptCalls(RedisServer server) {
        return calls(server, "cmdstat_evalsha", "cmdstat_eval");
    }

    private static long calls(RedisServer server, String... commands) {
        try (Jedis jedis = server.newConnection()) {
            long calls = 0;
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                for (String c : commands) {
                    if (line.startsWith(c + ":")) {
                        String v = line.substring(line.indexOf("calls=") + 6);
                        calls += Long.parseLong(v.substring(0, v.indexOf(',')));
                    }
                }
            }
            return calls;
        }
    }
}
