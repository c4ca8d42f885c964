package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import io.github.deferlock.redis.internal.ReplicatedCall;
import io.github.deferlock.redis.internal.Topology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The lock's typed script calls: acquire.lua (with {@code WAIT} when replicas are required) and release.lua
 * ({@link LockLua}), the only code that knows their KEYS and ARGV order. Threadsafe.
 */
final class LockScripts {
    private static final Logger LOG = LoggerFactory.getLogger(LockScripts.class);

    /**
     * How long release.lua keeps the token of a release (p{e}:last-release), so a release that a client
     * resends after a lost reply (Jedis's cluster executor, or {@code Retry}) recognises its own success.
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

    private final LockConfig config;
    private final UnifiedJedis redis;
    private final Topology topology;
    private final ReplicatedCall replicated;

    LockScripts(LockConfig config, UnifiedJedis redis, Topology topology) {
        this.config = config;
        this.redis = redis;
        this.topology = topology;
        this.replicated = new ReplicatedCall(topology, config.replicas(), config.replicaTimeout());
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
                return parse(LockLua.ACQUIRE.run(redis, keys, args));
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
     * Runs the acquire script and {@code WAIT} in one pipeline ({@link ReplicatedCall}), so both use the
     * connection of the key's master; too few replicas release the key again and fail.
     */
    private long[] acquireAndWait(KeyState st, byte[] token, List<byte[]> keys, List<byte[]> args) {
        ReplicatedCall.Replies replies = replicated.run(LockLua.ACQUIRE, keys, args);
        long[] result = parse(replies.reply());
        long replicas = replies.acked();
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

    private static long[] parse(Object reply) {
        List<?> list = (List<?>) reply;
        return new long[] {(Long) list.get(0), (Long) list.get(1)};
    }

    /** Runs release.lua for {@code token}; returns its reply (0 lost, 1 or 2 deleted, 3 already released). */
    long release(KeyState st, byte[] token) {
        Object reply = LockLua.RELEASE.run(
                redis,
                List.of(st.key, st.lastRelease),
                List.of(token, st.channel, topology.publishFlag(), RELEASE_RECORD_ARG));
        return (Long) reply;
    }
}
