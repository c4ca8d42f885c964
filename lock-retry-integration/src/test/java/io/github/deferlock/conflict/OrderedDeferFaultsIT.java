package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.DeadLetter;
import io.github.deferlock.delay.DeadLetterCause;
import io.github.deferlock.delay.Job;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.delay.QueueListener;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.lock.internal.Parking;
import io.github.deferlock.lock.internal.RedisLock;
import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * Ordered DEFER ({@link DeferMode#ORDERED}) under faults, against a real redis-server: Redis outages while a
 * key drains, dead letters requeued under overflow, carriers redelivered after a failure.
 */
@ExtendWith(RedisExtension.class)
final class OrderedDeferFaultsIT {

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

    private static ConflictAwareHandler<Msg> seq(RedisLocks locks, Deferrals deferrals, MessageHandler<Msg> body) {
        return ConflictAwareHandler.builder("seq", Msg.class, locks)
                .key(m -> "k:" + m.order())
                .messageId(Msg::id)
                .handler(body)
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    /**
     * Redis goes away while a parked head runs (its done marker cannot be written at once): with one attempt per
     * job, a drain token that paid an attempt for it would be dead-lettered and the key's parked work stranded.
     * The outage outlasts half the worker's lease, so the done marker's wait gives up and the head runs again.
     */
    @Test
    void redisOutageWhileDraining_costsNoAttempt_andTheKeyStillDrains(RedisServer server, RedisClient redis)
            throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        AtomicBoolean outageDone = new AtomicBoolean();
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy =
                        RedisClient.builder().hostAndPort(proxy.hostAndPort()).build();
                RedisLocks workerLocks = RedisLocks.builder(viaProxy)
                        .keyPrefix("o:")
                        .defaultLease(Duration.ofSeconds(2))
                        .build();
                Deferrals parkers = Deferrals.builder(redis, "outage")
                        .mode(DeferMode.ORDERED)
                        .maxAttempts(1)
                        .build();
                Deferrals workers = Deferrals.builder(viaProxy, "outage")
                        .mode(DeferMode.ORDERED)
                        .maxAttempts(1)
                        .visibilityTimeout(Duration.ofSeconds(2))
                        .drainWait(Duration.ofSeconds(2))
                        .build()) {
            ConflictAwareHandler<Msg> parker = seq(locks, parkers, m -> {});
            seq(workerLocks, workers, m -> {
                ran.add(m.id());
                if (m.id().equals("a") && outageDone.compareAndSet(false, true)) {
                    proxy.refuse(); // Redis is gone for the worker: the done marker and pop.lua fail
                    Thread healer = new Thread(() -> {
                        try {
                            Thread.sleep(1_500); // the outage's length, not a wait for a result
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        proxy.heal();
                    });
                    healer.setDaemon(true);
                    healer.start();
                }
            });
            LockLease hold = holder.get("k:1").acquire(Duration.ZERO, LONG);
            for (String id : List.of("a", "b", "c")) {
                assertThat(parker.handle(new Msg(id, "1"))).isEqualTo(Outcome.DEFERRED);
            }
            hold.close();
            workers.startWorker(1);
            await().atMost(LONG).until(() -> ran.contains("c"));
            assertThat(ran)
                    .as(
                            "the 1.5 s outage outlasts half the worker's 2 s lease: the head's done marker gives up (a Redis"
                                    + " failure, no attempt), the head runs again, then the rest")
                    .containsExactly("a", "a", "b", "c");
            assertThat(workers.queue().size(JobState.DEAD))
                    .as("nothing dead-lettered")
                    .isZero();
            await().atMost(LONG)
                    .until(() ->
                            workers.queue().size(JobState.DUE) + workers.queue().size(JobState.IN_FLIGHT) == 0);
            assertThat(redis.llen("o:{k:1}:parked")).isZero();
        }
    }

    /**
     * A drain token runs before its parker's park.lua (the token is enqueued first) and finds another token
     * draining the key; that drain ends, and only then does park.lua run, which makes this token the drainer. A
     * token that ended at its first look left the key's parked message with a drainer that no job runs: the
     * stall the demo met with a RabbitMQ source (1 run in 3 of 1,000 events). The token must stay and drain.
     */
    @Test
    void tokenThatLooksBeforeItsPark_andFindsAnotherDrainer_stillDrainsTheKey(RedisClient redis) throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        String token = UUID.randomUUID().toString();
        String jobId = "drain:" + token;
        AtomicBoolean claimed = new AtomicBoolean();
        try (Deferrals deferrals = Deferrals.builder(redis, "late-park")
                .mode(DeferMode.ORDERED)
                .queueListener(new QueueListener() {
                    @Override
                    public void onClaimed(String queue, String id, int attempt) {
                        if (id.equals(jobId)) {
                            claimed.set(true);
                        }
                    }
                })
                .build()) {
            seq(locks, deferrals, m -> ran.add(m.id()));
            redis.set("o:{k:1}:drainer", "another-token", SetParams.setParams().px(60_000)); // a live drainer
            deferrals.queue().enqueue(jobId, DeferredMessage.drain("seq", "k:1", token, Instant.now()), Duration.ZERO);
            deferrals.startWorker(1);
            await().atMost(LONG)
                    .alias("the token's first look is over: it ran and is no longer in flight")
                    .until(() -> claimed.get()
                            && deferrals
                                    .queue()
                                    .get(jobId)
                                    .map(i -> i.state() != JobState.IN_FLIGHT)
                                    .orElse(true));
            redis.del("o:{k:1}:drainer"); // the other drain ends
            DeferredMessage parked = DeferredMessage.first(
                    "seq", "k:1", "a", deferrals.mapper().valueToTree(new Msg("a", "1")), Instant.now());
            Parking.ParkReply reply = ((RedisLock) locks.get("k:1"))
                    .parking()
                    .park(
                            Names.pair("seq", "a"),
                            deferrals.mapper().writeValueAsString(parked),
                            100,
                            token,
                            deferrals.drainerLeaseMillis()); // the parker's park.lua, late
            assertThat(reply.drainer())
                    .as("park.lua made the token the drainer")
                    .isTrue();
            await().atMost(LONG)
                    .alias("the parked message runs: its token is still there to drain the key")
                    .until(() -> ran.contains("a"));
            assertThat(redis.llen("o:{k:1}:parked")).isZero();
        }
    }

    /**
     * A dead letter of the overflow requeued while its key is still full parks as a new message, overflows again
     * and its carrier id is the job running now: it must stay (nacked), not be acknowledged and lost.
     */
    @Test
    void overflowDeadLetter_requeuedWhileStillFull_staysInTheQueue(RedisClient redis) {
        try (Deferrals deferrals = Deferrals.builder(redis, "requeue-full")
                .mode(DeferMode.ORDERED)
                .maxParked(1)
                .maxAttempts(1)
                .onParkedOverflow(ParkedOverflow.DEAD_LETTER)
                .drainWait(Duration.ofMillis(200))
                .build()) {
            List<String> ran = new CopyOnWriteArrayList<>();
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, m -> ran.add(m.id()));
            LockLease hold = holder.get("k:2").acquire(Duration.ZERO, LONG);
            assertThat(handler.handle(new Msg("a", "2"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("b", "2"))).isEqualTo(Outcome.DEFERRED);
            deferrals.startWorker(1);
            await().atMost(LONG).until(() -> deferrals.queue().size(JobState.DEAD) == 1);
            String id = deferrals.queue().deadLetters().list(10).get(0).id();
            assertThat(deferrals.queue().deadLetters().requeue(id)).isTrue();
            await().atMost(LONG).until(() -> deferrals.queue().deadLetters().list(10).stream()
                    .anyMatch(d -> d.id().equals(id) && d.cause() == DeadLetterCause.ATTEMPTS_EXHAUSTED));
            assertThat(deferrals.queue().deadLetters().list(10).get(0).reason()).contains("maxParked 1");
            hold.close();
            await().atMost(LONG).until(() -> ran.contains("a"));
            assertThat(ran).containsExactly("a");
        }
    }

    /**
     * A carrier whose first delivery failed comes back with a last error; it is still a carrier to move to the
     * dead letters, not a requeued message to run.
     */
    @Test
    void carrierWhoseFirstDeliveryFailed_stillGoesToTheDeadLetters_andDoesNotRun(RedisClient redis) {
        try (Deferrals deferrals = Deferrals.builder(redis, "carrier-retry")
                .mode(DeferMode.ORDERED)
                .maxParked(1)
                .maxAttempts(3)
                .onParkedOverflow(ParkedOverflow.DEAD_LETTER)
                .drainWait(Duration.ofMillis(200))
                .build()) {
            List<String> ran = new CopyOnWriteArrayList<>();
            ConflictAwareHandler<Msg> handler = seq(locks, deferrals, m -> ran.add(m.id()));
            LockLease hold = holder.get("k:3").acquire(Duration.ZERO, LONG);
            assertThat(handler.handle(new Msg("a", "3"))).isEqualTo(Outcome.DEFERRED);
            assertThat(handler.handle(new Msg("b", "3"))).isEqualTo(Outcome.DEFERRED);
            // the carrier's first delivery fails (here: claimed and nacked by hand); the drain token goes back
            for (Job<DeferredMessage> job : deferrals.queue().claim(10)) {
                if (job.id().startsWith("dead:")) {
                    deferrals.queue().nack(job, "java.lang.RuntimeException: first delivery failed", Duration.ZERO);
                } else {
                    deferrals.queue().reschedule(job, Duration.ZERO, null);
                }
            }
            deferrals.startWorker(1);
            await().atMost(LONG).until(() -> deferrals.queue().size(JobState.DEAD) == 1);
            DeadLetter dead = deferrals.queue().deadLetters().list(10).get(0);
            assertThat(DeadLetterReason.of(dead.reason())).contains(DeadLetterReason.PARKED_LIMIT);
            hold.close();
            await().atMost(LONG).until(() -> ran.contains("a"));
            await().atMost(LONG)
                    .until(() -> deferrals.queue().size(JobState.DUE)
                                    + deferrals.queue().size(JobState.IN_FLIGHT)
                            == 0);
            assertThat(ran).as("b is a dead letter, not run").containsExactly("a");
        }
    }

    /**
     * A key's parked head belongs to a handler no worker process has (renamed, or another queue's): it is
     * counted as failing and dead-lettered after its attempts, naming the handler, and the key goes on.
     */
    @Test
    void parkedHeadOfAnUnknownHandler_isDeadLetteredAfterItsAttempts_andTheKeyGoesOn(RedisClient redis) {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Deferrals parkers = Deferrals.builder(redis, "unknown")
                        .mode(DeferMode.ORDERED)
                        .maxAttempts(2)
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .build();
                Deferrals workers = Deferrals.builder(redis, "unknown")
                        .mode(DeferMode.ORDERED)
                        .maxAttempts(2)
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .drainWait(Duration.ofSeconds(2))
                        .build()) {
            ConflictAwareHandler<Msg> gone = ConflictAwareHandler.builder("gone", Msg.class, locks)
                    .key(m -> "k:" + m.order())
                    .messageId(Msg::id)
                    .handler(m -> {})
                    .onConflict(OnConflict.DEFER)
                    .deferrals(parkers)
                    .build();
            ConflictAwareHandler<Msg> parker = seq(locks, parkers, m -> {});
            seq(locks, workers, m -> ran.add(m.id()));
            LockLease hold = holder.get("k:4").acquire(Duration.ZERO, LONG);
            assertThat(gone.handle(new Msg("g", "4"))).isEqualTo(Outcome.DEFERRED);
            assertThat(parker.handle(new Msg("b", "4"))).isEqualTo(Outcome.DEFERRED);
            hold.close();
            workers.startWorker(1);
            await().atMost(LONG).until(() -> ran.contains("b"));
            assertThat(ran).containsExactly("b");
            await().atMost(LONG).until(() -> workers.queue().size(JobState.DEAD) == 1);
            DeadLetter dead = workers.queue().deadLetters().list(10).get(0);
            assertThat(DeadLetterReason.of(dead.reason())).contains(DeadLetterReason.HANDLER_FAILED);
            assertThat(dead.reason()).contains("'gone'").contains("attempt 2 of 2");
        }
    }
}
