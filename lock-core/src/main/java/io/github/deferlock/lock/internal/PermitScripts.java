package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.PermitHolder;
import io.github.deferlock.redis.internal.BoundedBorrow;
import io.github.deferlock.redis.internal.PoolExhaustedException;
import io.github.deferlock.redis.internal.Topology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The permits' typed script calls (permit-acquire.lua, permit-release.lua, permit-renew.lua, permit-leave.lua,
 * permit-holders.lua; their shared part is permits.lua): the only code that knows their KEYS and ARGV order.
 * Threadsafe.
 */
final class PermitScripts {
    /** How long a release is recorded (p{e}:released-permits), so a resent release recognises its success. */
    static final long RELEASE_RECORD_MILLIS = LockScripts.RELEASE_RECORD_MILLIS;

    private static final byte[] RELEASE_RECORD_ARG =
            Long.toString(RELEASE_RECORD_MILLIS).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WAITER_LIFE_ARG =
            Long.toString(LockScripts.WAITER_LIFE_MILLIS).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NO_WAITER = new byte[0];

    /** Where a waiting call stands in the name's waiter queue (permit-acquire.lua ARGV[5]). */
    enum Queue {
        /** It will not wait: takes a free permit, never queues. */
        NONE(new byte[0]),
        /** Not queued yet: queues if not granted. */
        NEW("new".getBytes(StandardCharsets.US_ASCII)),
        /** Queued: granted only when eligible, else refreshes its place. */
        WAIT("wait".getBytes(StandardCharsets.US_ASCII)),
        /** Queued, asking for the last time: leaves the queue if not granted. */
        LAST("last".getBytes(StandardCharsets.US_ASCII));

        final byte[] arg;

        Queue(byte[] arg) {
            this.arg = arg;
        }
    }

    private final UnifiedJedis redis;
    private final Topology topology;

    PermitScripts(UnifiedJedis redis, Topology topology) {
        this.redis = redis;
        this.topology = topology;
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs permit-acquire.lua.
     *
     * @return {1, slot, fencing token} or {0, ms until the first live holder's lease ends (-1 unknown)}
     * @throws LockException when the name is held as a lock, the live holders have another limit, or Redis fails
     */
    long[] acquire(
            KeyState st,
            String name,
            byte[] token,
            long leaseMillis,
            int limit,
            byte[] waiter,
            Queue queue,
            long borrow) {
        List<byte[]> keys = List.of(st.key, Keys.permitsKey(st.key), st.fence, st.waiters, st.waiterDeadlines);
        List<byte[]> args = List.of(
                token,
                ascii(leaseMillis),
                ascii(limit),
                queue == Queue.NONE ? NO_WAITER : waiter,
                queue.arg,
                WAITER_LIFE_ARG,
                st.waiterChannelPrefix,
                topology.publishFlag());
        try {
            List<?> reply = (List<?>) BoundedBorrow.run(LockLua.PERMIT_ACQUIRE, redis, keys, args, borrow);
            long[] out = new long[reply.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (Long) reply.get(i);
            }
            return out;
        } catch (PoolExhaustedException e) {
            throw new LockException("cannot acquire a permit of '" + name + "': " + e.getMessage(), e);
        } catch (JedisDataException e) {
            throw dataError(e, name, limit, "cannot acquire a permit of '");
        } catch (JedisException e) {
            throw new LockException("cannot acquire a permit of '" + name + "' (key " + st.keyString + ")", e);
        }
    }

    private static LockException dataError(JedisDataException e, String name, int limit, String what) {
        String msg = String.valueOf(e.getMessage());
        if (msg.contains("held as a lock")) {
            return new LockException(
                    "permits '" + name + "' cannot be used: the name is held as a lock (a name is"
                            + " used either as a lock or as permits)",
                    e);
        }
        if (msg.contains("WRONGTYPE")) {
            return new LockException(
                    "permits '" + name + "': the key holds a value that is not permits (WRONGTYPE)", e);
        }
        int at = msg.indexOf("LIMIT ");
        if (at >= 0) {
            String stored = msg.substring(at + 6).trim();
            return new LockException(
                    "permits '" + name + "' are held under limit " + stored + ", not " + limit
                            + ": a new limit takes over only when no holder is live",
                    e);
        }
        return new LockException(what + name + "': " + msg, e);
    }

    /** Runs permit-release.lua: 1 released, 3 already released (a resend), 0 lost. */
    long release(PermitHold hold) {
        KeyState st = hold.state;
        return (Long) LockLua.PERMIT_RELEASE.run(
                redis,
                List.of(st.key, hold.records, Keys.releasedPermitsKey(st.key), st.waiters, st.waiterDeadlines),
                List.of(
                        hold.token,
                        ascii(hold.limit),
                        st.waiterChannelPrefix,
                        RELEASE_RECORD_ARG,
                        topology.publishFlag()));
    }

    /** Runs permit-renew.lua for a batch of permits (one slot): per permit 1 renewed, 0 gone. */
    static List<?> renew(UnifiedJedis redis, List<? extends Hold> batch, byte[] leaseMillis) {
        List<byte[]> keys = new ArrayList<>(2 * batch.size());
        List<byte[]> args = new ArrayList<>(batch.size() + 1);
        args.add(leaseMillis);
        for (Hold h : batch) {
            keys.add(h.state.key);
            keys.add(((PermitHold) h).records);
            args.add(h.token);
        }
        return (List<?>) LockLua.PERMIT_RENEW.run(redis, keys, args);
    }

    /** Runs permit-leave.lua: the waiting call {@code waiter} leaves the queue. */
    void leave(KeyState st, byte[] waiter, int limit) {
        BoundedBorrow.run(
                LockLua.PERMIT_LEAVE,
                redis,
                List.of(st.key, st.waiters, st.waiterDeadlines),
                List.of(waiter, ascii(limit), st.waiterChannelPrefix, topology.publishFlag()),
                0);
    }

    /** Runs permit-holders.lua: the live holders by slot. */
    List<PermitHolder> holders(byte[] key, String name, int limit) {
        List<?> reply;
        try {
            reply = (List<?>) LockLua.PERMIT_HOLDERS.run(redis, List.of(key, Keys.permitsKey(key)), List.of());
        } catch (JedisDataException e) {
            throw dataError(e, name, limit, "cannot list the holders of permits '");
        } catch (JedisException e) {
            throw new LockException("cannot list the holders of permits '" + name + "'", e);
        }
        List<PermitHolder> out = new ArrayList<>();
        for (int i = 1; i + 2 < reply.size(); i += 3) {
            out.add(new PermitHolder(
                    ((Long) reply.get(i)).intValue(), (Long) reply.get(i + 1), Duration.ofMillis(Math.max(0, (Long)
                            reply.get(i + 2)))));
        }
        out.sort(Comparator.comparingInt(PermitHolder::slot));
        return out;
    }
}
