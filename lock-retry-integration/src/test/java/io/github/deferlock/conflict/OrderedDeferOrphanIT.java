package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Parked work whose drain token is gone (docs/lock-keys.md, "Which fault leaves what"): the token's enqueue lost
 * in a failover, the token dead-lettered, or a token that ended before a frozen parker's park.lua made it the
 * drainer. No new message of the key ever comes; the orphan sweep of a process that parked or drained the key
 * must still run its parked messages, in order, about a drainer lease after the record lapsed.
 */
@ExtendWith(RedisExtension.class)
final class OrderedDeferOrphanIT {

    /** Recovery takes about two drainer leases (3 s here); the bound is ten times that. */
    private static final Duration RECOVERY = Duration.ofSeconds(30);

    private static final Duration LONG = Duration.ofSeconds(60);

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

    /** A drainer lease of 1.5 s (drain wait 0.5 s + visibility timeout 1 s), so the sweep comes soon. */
    static Deferrals shortLease(UnifiedJedis redis, String queue) {
        return Deferrals.builder(redis, queue)
                .mode(DeferMode.ORDERED)
                .drainWait(Duration.ofMillis(500))
                .visibilityTimeout(Duration.ofSeconds(1))
                .build();
    }

    static ConflictAwareHandler<Msg> seq(RedisLocks locks, Deferrals deferrals, List<String> ran) {
        return ConflictAwareHandler.builder("seq", Msg.class, locks)
                .key(m -> "k:" + m.order())
                .messageId(Msg::id)
                .handler(m -> ran.add(m.id()))
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    @Test
    void drainTokenLost_parkedMessagesRunInOrder_withNoNewMessage(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = shortLease(redis, "orphan-lost")) {
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, ran);
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, LONG);
            for (String id : List.of("a", "b", "c")) {
                assertThat(handler.handle(new Msg(id, "1"))).isEqualTo(Outcome.DEFERRED);
            }
            String token = redis.get("o:{k:1}:drainer");
            assertThat(deferrals.queue().cancel("drain:" + token))
                    .as("the drain token's enqueue, lost in a failover (not replicated)")
                    .isTrue();
            assertThat(deferrals.queue().size(JobState.DUE))
                    .as("no job left for the key")
                    .isZero();
            deferrals.startWorker(1);
            hold.close();
            await().atMost(RECOVERY)
                    .alias("the parked messages run with no new message of the key")
                    .until(() -> ran.size() >= 3);
            assertThat(ran).containsExactly("a", "b", "c");
            awaitKeyDrained(redis, deferrals, "k:1");
        }
    }

    @Test
    void drainTokenDeadLettered_parkedMessagesRunInOrder_withNoNewMessage(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = shortLease(redis, "orphan-dead")) {
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, ran);
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, LONG);
            for (String id : List.of("a", "b")) {
                assertThat(handler.handle(new Msg(id, "1"))).isEqualTo(Outcome.DEFERRED);
            }
            String jobId = "drain:" + redis.get("o:{k:1}:drainer");
            List<Job<DeferredMessage>> claimed = deferrals.queue().claim(10);
            assertThat(claimed).extracting(Job::id).containsExactly(jobId);
            assertThat(deferrals.queue().deadLetter(claimed.get(0), "Redis failed on every attempt"))
                    .as("the token dead-lettered after its attempts")
                    .isTrue();
            deferrals.startWorker(1);
            hold.close();
            await().atMost(RECOVERY).until(() -> ran.size() >= 2);
            assertThat(ran).containsExactly("a", "b");
            awaitKeyDrained(redis, deferrals, "k:1");
            assertThat(deferrals.queue().size(JobState.DEAD))
                    .as("the dead token stays in the dead letters; its key no longer needs it")
                    .isEqualTo(1);
        }
    }

    /**
     * A frozen parker: its token ran, found nothing parked for a drainer lease and ended; then the parker's
     * park.lua made that ended token the drainer, and the parker died before it could enqueue {@code :late}. The
     * worker process that ran the token remembers the key.
     */
    @Test
    void endedTokenMadeTheDrainerByALatePark_parkedMessageRuns_withNoNewMessage(RedisClient redis) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals deferrals = shortLease(redis, "orphan-late")) {
            seq(locks, deferrals, ran);
            String token = UUID.randomUUID().toString();
            String jobId = "drain:" + token;
            long lease = deferrals.drainerLeaseMillis();
            deferrals
                    .queue()
                    .enqueue(
                            jobId,
                            DeferredMessage.drain(
                                    "seq", "k:1", token, Instant.now().minusMillis(lease)),
                            Duration.ZERO);
            deferrals.startWorker(1);
            await().atMost(LONG)
                    .alias("the token, a lease old, found nothing parked and ended")
                    .until(() -> deferrals.queue().get(jobId).isEmpty());
            DeferredMessage parked = DeferredMessage.first(
                    "seq", "k:1", "a", deferrals.mapper().valueToTree(new Msg("a", "1")), Instant.now());
            Parking.ParkReply reply = ((RedisLock) locks.get("k:1"))
                    .parking()
                    .park(Names.pair("seq", "a"), deferrals.mapper().writeValueAsString(parked), 100, token, lease);
            assertThat(reply.drainer())
                    .as("the late park.lua made the ended token the drainer")
                    .isTrue();
            await().atMost(RECOVERY).until(() -> ran.contains("a"));
            assertThat(ran).containsExactly("a");
            awaitKeyDrained(redis, deferrals, "k:1");
        }
    }

    /**
     * A key whose drain token waits for it (renewing its drainer record) is left alone by the sweeps: no second
     * token is enqueued, and its messages run once, in order.
     */
    @Test
    void liveDrainer_isNotAdopted_andEveryMessageRunsOnce(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        List<String> enqueued = new CopyOnWriteArrayList<>();
        AtomicInteger claims = new AtomicInteger();
        try (Deferrals deferrals = Deferrals.builder(redis, "orphan-live")
                .mode(DeferMode.ORDERED)
                .drainWait(Duration.ofMillis(500))
                .visibilityTimeout(Duration.ofSeconds(1))
                .queueListener(new QueueListener() {
                    @Override
                    public void onEnqueued(String queue, String jobId, Instant dueAt) {
                        enqueued.add(jobId);
                    }

                    @Override
                    public void onClaimed(String queue, String jobId, int attempt) {
                        claims.incrementAndGet();
                    }
                })
                .build()) {
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, ran);
            deferrals.startWorker(2);
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, LONG);
            for (String id : List.of("a", "b", "c")) {
                assertThat(handler.handle(new Msg(id, "1"))).isEqualTo(Outcome.DEFERRED);
            }
            String token = redis.get("o:{k:1}:drainer");
            await().atMost(LONG)
                    .alias("the token waited for the key 8 times (4 s, over two sweep periods)")
                    .until(() -> claims.get() >= 8);
            assertThat(redis.get("o:{k:1}:drainer"))
                    .as("the waiting token is still the drainer")
                    .isEqualTo(token);
            assertThat(enqueued)
                    .as("one token per parked message (two cancelled), none by a sweep")
                    .hasSize(3);
            hold.close();
            await().atMost(LONG).until(() -> ran.size() >= 3);
            awaitKeyDrained(redis, deferrals, "k:1");
            assertThat(ran).containsExactly("a", "b", "c");
        }
    }

    static void awaitKeyDrained(UnifiedJedis redis, Deferrals deferrals, String key) {
        await().atMost(LONG)
                .alias("no job left and nothing parked behind " + key)
                .until(() ->
                        deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT) == 0
                                && redis.llen("o:{" + key + "}:parked") == 0);
    }
}
