package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;

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
     * Redis goes away while a parked head runs (its done marker cannot be written): with one attempt per job,
     * a drain token that paid an attempt for it would be dead-lettered and the key's parked work stranded.
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
                Deferrals parkers =
                        Deferrals.builder(redis, "outage").maxAttempts(1).build();
                Deferrals workers = Deferrals.builder(viaProxy, "outage")
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
                    .as("the head runs again after the outage (its done marker was not written), then the rest")
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
}
