package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.LockLease;
import io.github.deferlock.lock.RedisLocks;
import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.JvmProcess;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.args.ListDirection;

@ExtendWith(RedisExtension.class)
final class DeferAcrossProcessesIT {

    /** The deferral delay of the recovering process in the crash test. */
    private static final Duration DEFERRAL_DELAY = Duration.ofMillis(200);

    /** The deferral queue's visibility timeout in the crash test. */
    private static final Duration VISIBILITY = Duration.ofSeconds(2);

    /** A worker process: runs deferred "orders" messages and prints HANDLED id for each. */
    public static final class WorkerMain {
        public static void main(String[] args) throws Exception {
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
            Deferrals deferrals = Deferrals.builder(redis, "deferred")
                    .backoff(Backoff.fixed(Duration.ofMillis(50)))
                    .build();
            ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .handler(m -> {
                        System.out.println("HANDLED " + m.id() + " "
                                + ProcessHandle.current().pid());
                        System.out.flush();
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

    /**
     * A consumer process that takes a message from a Redis list reliably (LMOVE to a processing list), hits a
     * conflict and tries to defer through a connection the test black-holes: it prints CONFLICT and hangs in
     * the enqueue, where the test kills it.
     */
    public static final class ConsumerMain {
        public static void main(String[] args) throws Exception {
            RedisClient redis = RedisClient.create("redis://127.0.0.1:" + args[0]);
            RedisClient viaProxy = RedisClient.create("redis://127.0.0.1:" + args[1]);
            RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
            Deferrals deferrals = Deferrals.builder(viaProxy, "deferred").build();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .handler(m -> System.out.println("HANDLED " + m.id()))
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .listener(new ConflictListener() {
                        @Override
                        public void onConflict(
                                String key, OnConflict strategy, java.util.Optional<Duration> holderTtl) {
                            System.out.println("CONFLICT " + key);
                            System.out.flush();
                        }
                    })
                    .build();
            System.out.println("READY");
            System.out.flush();
            String raw = redis.blmove("source", "processing", ListDirection.LEFT, ListDirection.RIGHT, 30);
            String[] parts = raw.split(",");
            handler.handle(new Msg(parts[0], parts[1]));
            redis.lrem("processing", 1, raw); // commit: only after handle returned
            System.out.println("COMMITTED");
        }
    }

    @Test
    void deferredMessage_isRunByAWorkerInAnotherJvm(RedisServer server, RedisClient redis) throws Exception {
        try (RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                RedisClient holderClient = server.newClient();
                RedisLocks holder =
                        RedisLocks.builder(holderClient).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .backoff(Backoff.fixed(Duration.ofMillis(50)))
                        .build();
                JvmProcess worker = JvmProcess.start(WorkerMain.class, Integer.toString(server.port()))) {
            AtomicInteger ranHere = new AtomicInteger();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .handler(m -> ranHere.incrementAndGet())
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            worker.awaitLine("READY", Duration.ofSeconds(60));
            Thread t = new Thread(() -> holder.get("order:7").tryLock(Duration.ZERO, Duration.ofMillis(500)));
            t.start();
            t.join();
            assertThat(handler.handle(new Msg("m1", "7"))).isEqualTo(Outcome.DEFERRED);
            String line = worker.awaitLine("HANDLED m1", Duration.ofSeconds(30));
            assertThat(line).endsWith(" " + worker.pid());
            assertThat(ranHere.get()).as("this process runs no deferral worker").isZero();
        }
    }

    @Test
    void consumerKilledBetweenConflictAndDeferral_losesNothing_andRunsOnce(RedisServer server, RedisClient redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisLocks locks = RedisLocks.builder(redis).keyPrefix("t:").build();
                RedisClient holderClient = server.newClient();
                RedisLocks holder =
                        RedisLocks.builder(holderClient).keyPrefix("t:").build();
                Deferrals deferrals = Deferrals.builder(redis, "deferred")
                        .backoff(Backoff.fixed(DEFERRAL_DELAY))
                        .visibilityTimeout(VISIBILITY)
                        .build();
                JvmProcess consumer = JvmProcess.start(
                        ConsumerMain.class, Integer.toString(server.port()), Integer.toString(proxy.port()))) {
            consumer.awaitLine("READY", Duration.ofSeconds(60));
            // taken after the consumer JVM is up, with a lease far longer than a busy machine needs to get the
            // message to the consumer, and released explicitly once the consumer is dead
            LockLease hold = holder.get("order:9").acquire(Duration.ZERO, Duration.ofSeconds(60));
            proxy.blackhole();
            redis.rpush("source", "m9,9");
            consumer.awaitLine("CONFLICT", Duration.ofSeconds(30));
            consumer.kill();
            proxy.heal();
            hold.close();

            assertThat(deferrals.queue().size(JobState.DUE))
                    .as("no deferral was stored")
                    .isZero();
            assertThat(redis.lrange("processing", 0, -1))
                    .as("the message was not committed, so the source still has it")
                    .containsExactly("m9,9");

            // recovery: the source hands the uncommitted message out again
            AtomicInteger ran = new AtomicInteger();
            ConflictAwareHandler<Msg> handler = ConflictAwareHandler.builder("orders", Msg.class, locks)
                    .key(m -> "order:" + m.order())
                    .handler(m -> ran.incrementAndGet())
                    .onConflict(OnConflict.DEFER)
                    .deferrals(deferrals)
                    .build();
            deferrals.startWorker(1);
            String raw = redis.lpop("processing");
            Outcome o = handler.handle(new Msg(raw.split(",")[0], raw.split(",")[1]));
            assertThat(o).isIn(Outcome.PROCESSED, Outcome.DEFERRED);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ran.get() == 1);
            // and no second run follows: a second copy would be due within a deferral delay, a run whose ack
            // was lost would come back after the visibility timeout; watch longer than both (plus slack for
            // the worker's claim loop on a busy machine)
            Duration window = VISIBILITY.plus(DEFERRAL_DELAY.multipliedBy(4)).plusSeconds(2);
            org.awaitility.Awaitility.await()
                    .during(window)
                    .atMost(window.plusSeconds(5))
                    .until(() -> ran.get() == 1);
            assertThat(deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT))
                    .as("nothing left that could run it again")
                    .isZero();
            assertThat(consumer.output()).noneMatch(l -> l.startsWith("HANDLED"));
        }
    }
}
