package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import io.github.deferlock.redis.internal.BoundedBorrow;
import io.github.deferlock.redis.internal.Durations;
import io.github.deferlock.redis.internal.PoolExhaustedException;
import io.github.deferlock.redis.internal.ReplicatedCall;
import io.github.deferlock.redis.internal.Topology;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The lock's typed script calls: acquire.lua (with {@code WAIT} when replicas are required), release.lua and
 * leave.lua ({@link LockLua}), the only code that knows their KEYS and ARGV order. Holds this engine's waiter
 * id: the name under which its contenders queue in a key's waiter queue (waiters.lua). Threadsafe.
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

    /**
     * How long a waiter's entry in a key's waiter queue lives unless the waiter asks again (every request of a
     * waiting contender refreshes it, at least every {@link PollBackoff#MAX_NANOS}): a crashed waiter delays
     * the queue by at most this plus one poll.
     */
    static final long WAITER_LIFE_MILLIS = 1_000;

    private static final byte[] WAITER_LIFE_ARG =
            Long.toString(WAITER_LIFE_MILLIS).getBytes(StandardCharsets.US_ASCII);

    /** Where a contender stands in the key's waiter queue when it asks (acquire.lua ARGV[5]). */
    enum Queue {
        /** It will not wait: takes a free key, never queues. */
        NONE(new byte[0]),
        /** Not queued yet: takes a free key, queues if the key is taken. */
        NEW("new".getBytes(StandardCharsets.US_ASCII)),
        /** Queued: takes a free or reserved key only as the live head, else refreshes its place. */
        WAIT("wait".getBytes(StandardCharsets.US_ASCII)),
        /** Queued, asking for the last time: like WAIT, but leaves the queue if not granted. */
        LAST("last".getBytes(StandardCharsets.US_ASCII));

        final byte[] arg;

        Queue(byte[] arg) {
            this.arg = arg;
        }
    }

    private static final byte[] HAND_OFF_BLOCK_ARG =
            Integer.toString(HandOffChain.BLOCK).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SINGLE_TOKEN_ARG = {'1'};
    private static final byte[] NO_WAITER = new byte[0];
    private static final byte[] YIELD_ARG = {'1'};

    private final LockConfig config;
    private final UnifiedJedis redis;
    private final Topology topology;
    private final ReplicatedCall replicated;
    private final byte[] waiterId;

    LockScripts(LockConfig config, UnifiedJedis redis, Topology topology) {
        this.config = config;
        this.redis = redis;
        this.topology = topology;
        this.replicated = new ReplicatedCall(topology, config.replicas(), config.replicaTimeout());
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        this.waiterId = HexFormat.of().formatHex(id).getBytes(StandardCharsets.US_ASCII);
    }

    /** This engine's waiter id (16 hex digits): the name its contenders queue under (waiters.lua). */
    byte[] waiterId() {
        return waiterId;
    }

    /** The channel on which this engine's contender for {@code st} is told the key is reserved for it. */
    byte[] waiterChannel(KeyState st) {
        return Keys.waiterChannel(st.key, waiterId);
    }

    /**
     * Runs the acquire script (with {@code WAIT} when configured).
     *
     * @param lease the lease in milliseconds, ASCII
     * @param watchdogHold whether to reserve a block of {@link HandOffChain#BLOCK} fencing tokens
     * @param queue where the caller stands in the key's waiter queue
     * @param borrowNanos how long to wait for a pooled connection at most ({@link BoundedBorrow}; negative: as
     *     long as the client waits)
     * @return {1, last fencing token of the block} or {0, holder's or reservation's TTL in ms (-1 unknown)}
     * @throws LockException naming the pool's size when no connection came free in time
     */
    long[] acquire(
            KeyState st,
            byte[] token,
            byte[] lease,
            boolean watchdogHold,
            Queue queue,
            long borrowNanos,
            boolean yieldToParked) {
        // with yieldToParked the key is refused ({0, -3}) while work is parked behind it (p{e}:parked, park.lua),
        // free or not
        List<byte[]> keys = yieldToParked
                ? List.of(st.key, st.fence, st.waiters, st.waiterDeadlines, st.parked)
                : List.of(st.key, st.fence, st.waiters, st.waiterDeadlines);
        List<byte[]> args = new ArrayList<>(9);
        args.addAll(List.of(
                token,
                lease,
                watchdogHold ? HAND_OFF_BLOCK_ARG : SINGLE_TOKEN_ARG,
                queue == Queue.NONE ? NO_WAITER : waiterId,
                queue.arg,
                WAITER_LIFE_ARG,
                st.waiterChannelPrefix,
                topology.publishFlag()));
        if (yieldToParked) {
            args.add(YIELD_ARG);
        }
        try {
            if (config.replicas() == 0) {
                return parse(BoundedBorrow.run(LockLua.ACQUIRE, redis, keys, args, borrowNanos));
            }
            return acquireAndWait(st, token, keys, args);
        } catch (PoolExhaustedException e) {
            throw new LockException("cannot acquire lock '" + st.keyString + "': " + e.getMessage(), e);
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
                    + " replicas within " + Durations.format(config.replicaTimeout()) + "; it was released again");
        }
        return result;
    }

    private static long[] parse(Object reply) {
        List<?> list = (List<?>) reply;
        return new long[] {(Long) list.get(0), (Long) list.get(1)};
    }

    /**
     * Runs release.lua for {@code token}; returns its reply (0 lost, 1 deleted, 2 reserved for the next
     * waiter of the queue, 3 already released).
     */
    long release(KeyState st, byte[] token) {
        Object reply = LockLua.RELEASE.run(
                redis,
                List.of(st.key, st.lastRelease, st.waiters, st.waiterDeadlines),
                List.of(token, st.waiterChannelPrefix, topology.publishFlag(), RELEASE_RECORD_ARG, WAITER_LIFE_ARG));
        return (Long) reply;
    }

    /**
     * Runs leave.lua: this engine's contender leaves the waiter queue of {@code st}. It ends a bounded wait, so
     * it waits for a pooled connection only {@link BoundedBorrow#MIN_WAIT}.
     */
    void leave(KeyState st) {
        BoundedBorrow.run(
                LockLua.LEAVE,
                redis,
                List.of(st.key, st.waiters, st.waiterDeadlines),
                List.of(waiterId, WAITER_LIFE_ARG, st.waiterChannelPrefix, topology.publishFlag()),
                0);
    }

    /**
     * Whether the key is held with {@code token} (its value may carry the '+' of a queued waiter). One
     * {@code GET}.
     */
    boolean holds(KeyState st, byte[] token) {
        byte[] held = redis.get(st.key);
        return held != null
                && held.length >= token.length
                && Arrays.equals(held, 0, token.length, token, 0, token.length);
    }

    /**
     * Whether the key, held with {@code token}, is marked as waited for by a queued waiter of another process
     * (its value is the token followed by '+', acquire.lua): then a release must go to Redis, not to a local
     * thread. One {@code GET}.
     */
    boolean markedAsWaitedFor(KeyState st, byte[] token) {
        byte[] held = redis.get(st.key);
        return held != null
                && held.length == token.length + 1
                && held[token.length] == '+'
                && Arrays.equals(held, 0, token.length, token, 0, token.length);
    }
}
