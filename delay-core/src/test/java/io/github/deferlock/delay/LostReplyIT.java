package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.FaultProxy;
import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 14, defects 2 and 6 (queue part): the server runs a write but its reply is lost (the proxy's {@code
 * blackholeReplies()}), the client times out and resends the same call; the resend must report what the first
 * try did, and a lost claim reply must never leave jobs in flight without a handler.
 */
@ExtendWith(RedisExtension.class)
final class LostReplyIT {
    private static final int SOCKET_TIMEOUT_MS = 500;

    /**
     * Runs {@code call} through the proxy while replies are blackholed; once {@code applied} (read directly from
     * Redis) says the server ran it, heals the proxy, so the client's resend after its timeout gets through.
     */
    private static <R> R withLostReply(FaultProxy proxy, Supplier<R> call, BooleanSupplier applied) throws Exception {
        proxy.blackholeReplies();
        CompletableFuture<R> result = CompletableFuture.supplyAsync(call);
        try {
            await().atMost(Duration.ofSeconds(10)).until(applied::getAsBoolean);
        } finally {
            proxy.heal();
        }
        return result.get(30, TimeUnit.SECONDS);
    }

    /**
     * Loads every script the tests call (a {@code NOSCRIPT} reply would be blackholed too, and the script never
     * run) by using each once on another queue.
     */
    private static void loadScripts(UnifiedJedis redis) {
        DelayQueue<Msg> warm = DelayQueue.builder(redis, "warm-up", Msg.class).build();
        warm.enqueue("w1", new Msg("w", 1), Duration.ZERO);
        warm.enqueue(new Msg("w", 2));
        warm.ack(warm.claim(1).get(0));
        warm.ackAll(warm.claim(1));
        warm.cancel("w3");
        warm.enqueueAll(List.of(new Msg("w", 4), new Msg("w", 5), new Msg("w", 6)), Duration.ZERO);
        List<Job<Msg>> three = warm.claim(3);
        warm.nack(three.get(0), "warm", Duration.ZERO);
        warm.reschedule(three.get(1), Duration.ZERO, null);
        warm.deadLetter(three.get(2), "warm");
    }

    @Test
    void claim_replyLostWithMaxAttemptsOne_resendGetsSameJobHandlerRunsAcked(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "lost-claim", Msg.class)
                    .maxAttempts(1)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "lost-claim", Msg.class)
                    .maxAttempts(1)
                    .visibilityTimeout(Duration.ofSeconds(2))
                    .build();
            String id = direct.enqueue(new Msg("once", 1)).id();
            viaProxy.ping(); // a pooled connection, so the first try is sent at once

            List<Job<Msg>> claimed = withLostReply(proxy, () -> proxied.claim(1), () -> direct.get(id)
                    .map(j -> j.state() == JobState.IN_FLIGHT)
                    .orElse(false));

            assertThat(claimed)
                    .as("the resent claim returns the job the lost reply carried")
                    .hasSize(1);
            Job<Msg> job = claimed.get(0);
            assertThat(job.id()).isEqualTo(id);
            assertThat(job.attempts()).isEqualTo(1);
            assertThat(proxied.ack(job)).as("the handler's ack").isTrue();
            assertThat(direct.get(id)).isEmpty();
            assertThat(direct.size(JobState.DEAD)).isZero();
        }
    }

    @Test
    void worker_claimRepliesLostUntilEveryTryFailed_nextClaimResendsItAndJobRunsOnce(
            RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "lost-worker", Msg.class)
                    .maxAttempts(1)
                    .visibilityTimeout(Duration.ofSeconds(6))
                    .build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "lost-worker", Msg.class)
                    .maxAttempts(1)
                    .visibilityTimeout(Duration.ofSeconds(6))
                    .build();
            List<Job<Msg>> runs = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (DelayQueueWorker<Msg> worker = DelayQueueWorker.builder(proxied, runs::add)
                    .fallbackPoll(Duration.ofMillis(100))
                    .build()
                    .start()) {
                proxied.claim(1); // the worker's claim script is loaded
                // idle pooled connections: each try of a claim takes one and its command reaches the server (a
                // new connection's handshake reply would be blackholed before the command is sent)
                List<CompletableFuture<?>> holders = new java.util.ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    holders.add(CompletableFuture.runAsync(() -> viaProxy.blpop(0.3, "no-such-list")));
                }
                holders.forEach(CompletableFuture::join);
                proxy.blackholeReplies();
                String id = direct.enqueue(new Msg("once", 1)).id();
                await().atMost(Duration.ofSeconds(10)).until(() -> direct.get(id)
                        .map(j -> j.state() == JobState.IN_FLIGHT)
                        .orElse(false));
                // the fault lasts longer than the client's own retries of that claim (4 tries of 500 ms)
                Thread.sleep(3_000);
                proxy.heal();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> direct.get(id).isEmpty());
                assertThat(worker.close(Duration.ofSeconds(5))).isTrue();
                assertThat(runs).extracting(Job::id).containsExactly(id);
                assertThat(runs.get(0).attempts()).isEqualTo(1);
                assertThat(direct.size(JobState.DEAD)).isZero();
            }
        }
    }

    @Test
    void claimBatch_replyLostWithRidingAcks_resendReportsAcksAndSameJobs(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct = DelayQueue.builder(redis, "lost-batch", Msg.class)
                    .maxAttempts(1)
                    .build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "lost-batch", Msg.class)
                    .maxAttempts(1)
                    .build();
            String first = direct.enqueue(new Msg("first", 1)).id();
            Job<Msg> finished = proxied.claim(1).get(0);
            assertThat(finished.id()).isEqualTo(first);
            String second = direct.enqueue(new Msg("second", 2)).id();

            ClaimBatch<Msg> batch =
                    withLostReply(proxy, () -> proxied.claimBatch(5, List.of(finished)), () -> direct.get(first)
                            .isEmpty());

            assertThat(batch.acked()).as("the ack that rode along").containsExactly(true);
            assertThat(batch.jobs()).extracting(Job::id).containsExactly(second);
            assertThat(batch.jobs().get(0).attempts()).isEqualTo(1);
        }
    }

    @Test
    void ack_replyLost_resendReportsAcked(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-ack", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-ack", Msg.class).build();
            String id = direct.enqueue(new Msg("ack me", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);

            boolean acked = withLostReply(
                    proxy, () -> proxied.ack(job), () -> direct.get(id).isEmpty());

            assertThat(acked).as("a resent ack is told about its own success").isTrue();
        }
    }

    @Test
    void ackAll_replyLost_resendReportsAcked(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-ackall", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-ackall", Msg.class).build();
            direct.enqueueAll(List.of(new Msg("a", 1), new Msg("b", 2)), Duration.ZERO);
            List<Job<Msg>> jobs = proxied.claim(2);
            assertThat(jobs).hasSize(2);

            List<Boolean> acked =
                    withLostReply(proxy, () -> proxied.ackAll(jobs), () -> direct.size(JobState.IN_FLIGHT) == 0);

            assertThat(acked).containsExactly(true, true);
        }
    }

    @Test
    void cancel_replyLost_resendReportsCancelled(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-cancel", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-cancel", Msg.class).build();
            String id = direct.enqueue(new Msg("cancel me", 1), Duration.ofMinutes(5))
                    .id();
            viaProxy.ping();

            boolean cancelled = withLostReply(
                    proxy, () -> proxied.cancel(id), () -> direct.get(id).isEmpty());

            assertThat(cancelled)
                    .as("a resent cancel is told about its own success")
                    .isTrue();
        }
    }

    @Test
    void enqueueWithId_replyLost_resendReportsEnqueuedNotDuplicate(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-enqueue", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-enqueue", Msg.class).build();
            viaProxy.ping();

            EnqueueResult result = withLostReply(
                    proxy,
                    () -> proxied.enqueue("order-42", new Msg("once", 1), Duration.ofMinutes(1)),
                    () -> direct.get("order-42").isPresent());

            assertThat(result.duplicate())
                    .as("a resent enqueue is told about its own insert")
                    .isFalse();
            assertThat(result.dueAt()).isNotNull();
            // a real second enqueue with the same id is still a duplicate
            assertThat(proxied.enqueue("order-42", new Msg("again", 2), Duration.ZERO)
                            .duplicate())
                    .isTrue();
        }
    }

    @Test
    void enqueueAllWithIds_replyLost_resendReportsEnqueued(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-enqueue-all", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-enqueue-all", Msg.class).build();
            viaProxy.ping();
            direct.enqueue("taken", new Msg("earlier", 0), Duration.ZERO);
            proxied.enqueueAll(List.of(NewJob.of("warm", new Msg("w", 0), Duration.ZERO))); // its SCRIPT LOAD

            List<EnqueueResult> results = withLostReply(
                    proxy,
                    () -> proxied.enqueueAll(List.of(
                            NewJob.of("a", new Msg("a", 1), Duration.ZERO),
                            NewJob.of("taken", new Msg("b", 2), Duration.ZERO))),
                    () -> direct.get("a").isPresent());

            assertThat(results).extracting(EnqueueResult::duplicate).containsExactly(false, true);
        }
    }

    @Test
    void nack_replyLost_resendReportsSettledNotStale(RedisServer server, UnifiedJedis redis) throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-nack", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-nack", Msg.class).build();
            String id = direct.enqueue(new Msg("nack me", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);

            boolean settled = withLostReply(
                    proxy,
                    () -> proxied.nack(job, "failed once", Duration.ofMinutes(5)),
                    () -> direct.get(id).map(j -> j.state() == JobState.DUE).orElse(false));

            assertThat(settled)
                    .as("a resent nack is told about its own success")
                    .isTrue();
            assertThat(direct.get(id).orElseThrow().lastError()).contains("failed once");
            assertThat(proxied.nack(job, "again", Duration.ZERO))
                    .as("a real second nack with the same receipt is still stale")
                    .isFalse();
        }
    }

    @Test
    void reschedule_replyLost_resendReportsRescheduledNotStale(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-reschedule", Msg.class).build();
            DelayQueue<Msg> proxied =
                    DelayQueue.builder(viaProxy, "lost-reschedule", Msg.class).build();
            String id = direct.enqueue(new Msg("later", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);

            boolean rescheduled = withLostReply(
                    proxy,
                    () -> proxied.reschedule(job, Duration.ofMinutes(5), new Msg("replaced", 2)),
                    () -> direct.get(id).map(j -> j.state() == JobState.DUE).orElse(false));

            assertThat(rescheduled)
                    .as("a resent reschedule is told about its own success")
                    .isTrue();
            assertThat(direct.get(id).orElseThrow().attempts())
                    .as("a deferral is not an attempt")
                    .isZero();
        }
    }

    @Test
    void deadLetter_replyLost_resendReportsMovedAndListenerHearsItOnce(RedisServer server, UnifiedJedis redis)
            throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server);
                RedisClient viaProxy = Clients.pooled(proxy.hostAndPort(), SOCKET_TIMEOUT_MS)) {
            loadScripts(redis);
            List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
            DelayQueue<Msg> direct =
                    DelayQueue.builder(redis, "lost-dead", Msg.class).build();
            DelayQueue<Msg> proxied = DelayQueue.builder(viaProxy, "lost-dead", Msg.class)
                    .listener(new QueueListener() {
                        @Override
                        public void onDeadLettered(String queue, String jobId, String error) {
                            heard.add(jobId);
                        }
                    })
                    .build();
            String id = direct.enqueue(new Msg("poison", 1)).id();
            Job<Msg> job = proxied.claim(1).get(0);

            boolean moved = withLostReply(proxy, () -> proxied.deadLetter(job, "cannot handle"), () -> direct.get(id)
                    .map(j -> j.state() == JobState.DEAD)
                    .orElse(false));

            assertThat(moved)
                    .as("a resent deadLetter is told about its own success")
                    .isTrue();
            assertThat(heard).containsExactly(id);
        }
    }
}
