package io.github.deferlock.kafka;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.consumer.contract.ContractMessage;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * The handler of {@link KafkaPauseIT}, the same in every process: it locks {@code order:<key>} (prefix {@code t:})
 * with the given lease (the watchdog renews it), defers a conflict with ordered {@link Deferrals}, and its body
 * stands for a handler that writes to a store guarded by fencing tokens:
 *
 * <ol>
 *   <li>at its start, one script: {@code HINCRBY handled <id> 1}, {@code RPUSH log "<key> <seq> <id> <consumer>
 *       <token> <millis>"} (the first three fields are what {@code HandlingLog} reads) and {@code HINCRBY runs
 *       <consumer> 1};
 *   <li>then {@code work} of sleep;
 *   <li>at its end, the write: a script accepts it when its token is not below the highest token the key's writes
 *       were accepted with ({@code HSET fence <key> <token>}, {@code RPUSH effects <entry>}), and otherwise refuses
 *       it as stale ({@code RPUSH stale <entry>}).
 * </ol>
 *
 * So {@code log} holds each run's start, in the order a key's runs started (they run under the key's lock), and
 * {@code effects} the writes the fenced store took.
 */
final class PauseFixture implements AutoCloseable {
    static final String HANDLED = "handled";
    static final String LOG = "log";
    static final String EFFECTS = "effects";
    static final String STALE = "stale";
    /** Runs per consumer: consumer → runs started. */
    static final String RUNS = "runs";

    private static final String START = "redis.call('HINCRBY', KEYS[1], ARGV[1], 1)\n"
            + "redis.call('RPUSH', KEYS[2], ARGV[2])\n"
            + "redis.call('HINCRBY', KEYS[3], ARGV[3], 1)\n"
            + "return 1";
    private static final String FENCED_WRITE = "local top = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')\n"
            + "local token = tonumber(ARGV[2])\n"
            + "if token < top then\n"
            + "  redis.call('RPUSH', KEYS[3], ARGV[3])\n"
            + "  return 0\n"
            + "end\n"
            + "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])\n"
            + "redis.call('RPUSH', KEYS[2], ARGV[3])\n"
            + "return 1";

    final RedisClient redis;
    final RedisLocks locks;
    final Deferrals deferrals;
    final ConflictAwareHandler<ContractMessage> handler;

    PauseFixture(HostAndPort hp, String consumer, Duration work, Duration lease) {
        this.redis = Fixture.pooled(hp);
        this.locks =
                RedisLocks.builder(redis).keyPrefix("t:").defaultLease(lease).build();
        this.deferrals = Deferrals.builder(redis, "pause-deferred")
                .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500), 2.0))
                .maxDeferrals(10_000)
                .build();
        long workMillis = work.toMillis();
        this.handler = ConflictAwareHandler.builder("pause", ContractMessage.class, locks)
                .key(m -> "order:" + m.key())
                .messageId(ContractMessage::id)
                .contextHandler((m, context) -> {
                    String run = m.key() + " " + m.seq() + " " + m.id() + " " + consumer + " " + context.fencingToken();
                    redis.eval(
                            START,
                            List.of(HANDLED, LOG, RUNS),
                            List.of(m.id(), run + " " + System.currentTimeMillis(), consumer));
                    Thread.sleep(workMillis);
                    redis.eval(
                            FENCED_WRITE,
                            List.of("fence", EFFECTS, STALE),
                            List.of(
                                    m.key(),
                                    Long.toString(context.fencingToken()),
                                    run + " " + System.currentTimeMillis()));
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    /** Deferred messages (drain tokens of parked work) due or running. */
    long deferralsLeft() {
        return deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT);
    }

    @Override
    public void close() {
        deferrals.close();
        locks.close();
        redis.close();
    }
}
