package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * The lock's requests to Redis: acquire.lua (with {@code WAIT} when replicas are required) and release.lua,
 * the only code that knows their KEYS and ARGV order, and whether notices go out by {@code SPUBLISH}.
 * Threadsafe.
 */
final class LockRequests {
    private static final Logger LOG = LoggerFactory.getLogger(LockRequests.class);

    /**
     * How long release.lua keeps the token of a release (p{e}:last-release), so a release that a client
     * resends after a lost reply (Jedis's cluster executor, or {@link Retry}) recognises its own success.
     * Longer than any resend window of a sensibly configured client.
     */
    static final long RELEASE_RECORD_MILLIS = 60_000;

    private static final byte[] RELEASE_RECORD_ARG =
            Long.toString(RELEASE_RECORD_MILLIS).getBytes(StandardCharsets.US_ASCII);

    private static final byte[] HAND_OFF_BLOCK_ARG =
            Integer.toString(HandOffChain.BLOCK).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SINGLE_TOKEN_ARG = {'1'};
    private static final byte[] WILL_WAIT = {'1'};
    private static final byte[] WONT_WAIT = {'0'};

    static final byte[] SHARDED = {'1'};
    static final byte[] PLAIN = {'0'};

    private final LockConfig config;
    private final UnifiedJedis redis;
    private final Optional<ClusterAccess> cluster;
    private volatile byte[] shardedFlag; // release.lua ARGV[3]; null until known

    LockRequests(LockConfig config, UnifiedJedis redis, Optional<ClusterAccess> cluster) {
        this.config = config;
        this.redis = redis;
        this.cluster = cluster;
    }

    /**
     * Runs the acquire script (with {@code WAIT} when configured).
     *
     * @param lease the lease in milliseconds, ASCII
     * @param watchdogHold whether to reserve a block of {@link HandOffChain#BLOCK} fencing tokens
     * @param willWait whether the caller waits on (marks the key as waited for, so a release yields to it)
     * @return {1, last fencing token of the block} or {0, holder's TTL in ms (-1 unknown)}
     */
    long[] acquire(KeyState st, byte[] token, byte[] lease, boolean watchdogHold, boolean willWait) {
        List<byte[]> keys = List.of(st.key, st.fence);
        List<byte[]> args = List.of(
                token, lease, watchdogHold ? HAND_OFF_BLOCK_ARG : SINGLE_TOKEN_ARG, willWait ? WILL_WAIT : WONT_WAIT);
        try {
            if (config.replicas() == 0) {
                return parse(Script.ACQUIRE.run(redis, keys, args));
            }
            return acquireAndWait(st, token, keys, args);
        } catch (JedisDataException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("WRONGTYPE")) {
                throw new LockException(
                        "lock key '" + st.keyString + "' holds a value that is not a lock (WRONGTYPE)", e);
            }
            throw new LockException("cannot acquire lock '" + st.keyString + "': " + msg, e);
        } catch (JedisException e) {
            throw new LockException("cannot acquire lock '" + st.keyString + "'", e);
        }
    }

    /**
     * Runs the acquire script and {@code WAIT} in one pipeline, so both use the connection of the key's
     * master. A cluster pipeline follows the client's slot map but never refreshes it (no {@code MOVED}
     * handling, no retry), so after a failover a failed pipeline refreshes the map and is tried once more.
     */
    private long[] acquireAndWait(KeyState st, byte[] token, List<byte[]> keys, List<byte[]> args) {
        for (int attempt = 1; ; attempt++) {
            try {
                return acquireAndWaitOnce(st, token, keys, args);
            } catch (JedisConnectionException | JedisMovedDataException e) {
                if (cluster.isEmpty() || attempt == 2) {
                    throw e;
                }
                LOG.debug(
                        "lock '{}': pipeline failed ({}); refreshing the cluster slot map", st.keyString, e.toString());
                try {
                    cluster.get().refresh();
                } catch (JedisException refresh) {
                    e.addSuppressed(refresh);
                    throw e;
                }
            }
        }
    }

    private long[] acquireAndWaitOnce(KeyState st, byte[] token, List<byte[]> keys, List<byte[]> args) {
        Response<Object> reply;
        Response<Long> acked;
        long timeout = config.replicaTimeout().toMillis();
        try (AbstractPipeline pipeline = redis.pipelined()) {
            reply = pipeline.eval(Script.ACQUIRE.body(), keys, args);
            acked = pipeline.waitReplicas(st.key, config.replicas(), Math.max(1, timeout));
            pipeline.sync();
        }
        long[] result = parse(synced(reply));
        long replicas = synced(acked);
        if (result[0] == 1 && replicas < config.replicas()) {
            try {
                release(st, token);
            } catch (JedisException e) {
                LOG.debug("cannot release lock '{}' after a failed WAIT", st.keyString, e);
            }
            throw new LockException("lock '" + st.keyString + "' reached " + replicas + " of " + config.replicas()
                    + " replicas within " + config.replicaTimeout() + "; it was released again");
        }
        return result;
    }

    /**
     * The value of a synced pipeline response. A cluster pipeline logs (rather than throws) a failure of a
     * node's connection and leaves that node's responses unset; that is reported as the connection failure.
     */
    private static <T> T synced(Response<T> response) {
        try {
            return response.get();
        } catch (IllegalStateException e) {
            throw new JedisConnectionException("the pipeline to the lock's master failed", e);
        }
    }

    private static long[] parse(Object reply) {
        List<?> list = (List<?>) reply;
        return new long[] {(Long) list.get(0), (Long) list.get(1)};
    }

    /** Runs release.lua for {@code token}; returns its reply (0 lost, 1 or 2 deleted, 3 already released). */
    long release(KeyState st, byte[] token) {
        Object reply = Script.RELEASE.run(
                redis, List.of(st.key, st.lastRelease), List.of(token, st.channel, shardedFlag(), RELEASE_RECORD_ARG));
        return (Long) reply;
    }

    /** Whether the sharded flag is known yet (the cluster answered, or there is no cluster). */
    boolean shardedKnown() {
        return shardedFlag != null;
    }

    /** release.lua's ARGV[3]: {@link #SHARDED} for SPUBLISH on a Redis 7.0+ cluster, else {@link #PLAIN}. */
    byte[] shardedFlag() {
        byte[] flag = shardedFlag;
        if (flag != null) {
            return flag;
        }
        if (cluster.isEmpty()) {
            shardedFlag = PLAIN;
            return PLAIN;
        }
        try {
            flag = cluster.get().shardedPubSub() ? SHARDED : PLAIN;
            shardedFlag = flag;
            return flag;
        } catch (JedisException e) {
            LOG.debug("cannot tell whether the cluster has sharded pub/sub; publishing plainly for now", e);
            return PLAIN;
        }
    }
}
