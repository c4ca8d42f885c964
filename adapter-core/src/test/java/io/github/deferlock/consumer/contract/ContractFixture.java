package io.github.deferlock.consumer.contract;

import io.github.deferlock.conflict.ConflictAwareHandler;
import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.conflict.Deferrals;
import io.github.deferlock.conflict.OnConflict;
import io.github.deferlock.delay.Backoff;
import io.github.deferlock.delay.JobState;
import io.github.deferlock.lock.RedisLocks;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * The contract's handler, the same in every process: locks {@code order:<key>} under the prefix {@code t:}
 * (those {@link HolderMain} holds), DEFER on conflict with {@link Deferrals} in the given mode, and a handler that
 * records each run in Redis with one script: {@code HINCRBY handled <id> 1} and {@code RPUSH log "<key> <seq>
 * <id>"}, so the log holds every handling of every process in the order each key's handlings ran (they run under
 * the key's lock). A poison message's handler records {@code "<millis>:<handled ids so far>"} in {@code poison}
 * and throws. Locks and deferrals reach Redis at {@code locksAt} (a fault proxy in the test JVM); the records go
 * straight to {@code recordAt}, so an outage is never a handler failure.
 */
public final class ContractFixture implements AutoCloseable {
    /** The hash of handled ids: id → runs. */
    public static final String HANDLED = "handled";
    /** The list of handlings: {@code "<key> <seq> <id>"}. */
    public static final String LOG = "log";
    /** The list of the poison's runs: {@code "<millis>:<handled ids so far>"}. */
    public static final String POISON = "poison";
    /** On which failed attempt a message is dead-lettered. */
    public static final int MAX_ATTEMPTS = 4;
    /** The adapters' retry backoff in the contract: 200, 400, 800 ms (no jitter, so gaps can be checked). */
    public static final Backoff RETRY_BACKOFF =
            Backoff.exponential(Duration.ofMillis(200), Duration.ofMillis(800), 2.0);

    private static final String RECORD =
            "redis.call('HINCRBY', KEYS[1], ARGV[1], 1)\n" + "redis.call('RPUSH', KEYS[2], ARGV[2])\n" + "return 1";
    private static final String RECORD_POISON = "local n = redis.call('HLEN', KEYS[1])\n"
            + "redis.call('RPUSH', KEYS[2], ARGV[1] .. ':' .. n)\n"
            + "return n";

    /** The client of the locks and deferrals. */
    public final RedisClient redis;
    /** The client the handler records with. */
    public final RedisClient record;

    public final RedisLocks locks;
    public final Deferrals deferrals;
    public final ConflictAwareHandler<ContractMessage> handler;

    public ContractFixture(HostAndPort locksAt, HostAndPort recordAt, DeferMode mode) {
        this.redis = pooled(locksAt);
        this.record = pooled(recordAt);
        this.locks = RedisLocks.builder(redis).keyPrefix("t:").build();
        this.deferrals = Deferrals.builder(redis, "contract-deferred")
                .mode(mode)
                .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500), 2.0))
                .maxDeferrals(10_000)
                .build();
        this.handler = ConflictAwareHandler.builder("contract", ContractMessage.class, locks)
                .key(m -> "order:" + m.key())
                .messageId(ContractMessage::id)
                .handler(m -> {
                    if (m.poison()) {
                        record.eval(
                                RECORD_POISON,
                                List.of(HANDLED, POISON),
                                List.of(Long.toString(System.currentTimeMillis())));
                        throw new IllegalStateException("poison message " + m.id() + " always fails");
                    }
                    record.eval(RECORD, List.of(HANDLED, LOG), List.of(m.id(), m.key() + " " + m.seq() + " " + m.id()));
                })
                .onConflict(OnConflict.DEFER)
                .deferrals(deferrals)
                .build();
    }

    static RedisClient pooled(HostAndPort hp) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        return RedisClient.builder().hostAndPort(hp).poolConfig(pool).build();
    }

    /** Deferred messages (TIMED) or drain tokens (ORDERED) due or running. */
    public long deferralsLeft() {
        return deferrals.queue().size(JobState.DUE) + deferrals.queue().size(JobState.IN_FLIGHT);
    }

    @Override
    public void close() {
        deferrals.close();
        locks.close();
        redis.close();
        record.close();
    }
}
