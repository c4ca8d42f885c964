package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The parked work of one lock key: a FIFO of items (deferred messages) waiting behind the key, in the key's
 * slot, with the record of the drain token that runs them (park.lua, drain.lua, drain-next.lua, pop.lua; docs/lock-keys.md,
 * "Parked work"). The items are opaque payloads; what runs them and how lives in lock-retry-integration. A
 * plain acquisition ignores parked work; {@link RedisLock#attemptBehindParked()} is refused while there is
 * some. Not API. Immutable and threadsafe.
 */
public final class Parking {
    private final UnifiedJedis redis;
    private final byte[] parked;
    private final byte[] items;
    private final byte[] attempts;
    private final byte[] drainer;
    private final byte[] lockKey;
    private final byte[] fence;
    private final String keyString;

    Parking(UnifiedJedis redis, byte[] lockKey, String keyString) {
        this.redis = redis;
        this.parked = Keys.parkedKey(lockKey);
        this.items = Keys.parkedItemsKey(lockKey);
        this.attempts = Keys.parkedAttemptsKey(lockKey);
        this.drainer = Keys.drainerKey(lockKey);
        this.lockKey = lockKey;
        this.fence = Keys.fenceKey(lockKey);
        this.keyString = keyString;
    }

    /** What {@link #park} did. */
    public enum Parked {
        /** Appended now. */
        PARKED,
        /** The id was parked already (a resend or a redelivery); nothing changed. */
        ALREADY,
        /** The FIFO holds {@code cap} items; nothing was parked. */
        FULL
    }

    /**
     * The reply of {@link #park}.
     *
     * @param parked what happened
     * @param size items parked after the call
     * @param drainer whether {@code token} is the key's drainer (when false, another live drain token is)
     */
    public record ParkReply(Parked parked, long size, boolean drainer) {}

    /**
     * Appends item {@code id} unless it is parked already or {@code cap} items are, and makes {@code token}
     * the key's drainer for {@code drainerLeaseMillis} when the key has none. One round trip; a resend gives
     * the same answer.
     *
     * @throws LockException when Redis fails
     */
    public ParkReply park(String id, String payload, int cap, String token, long drainerLeaseMillis) {
        List<?> r = (List<?>) run(
                LockLua.PARK,
                List.of(parked, items, drainer),
                List.of(bytes(id), bytes(payload), bytes(cap), bytes(token), bytes(drainerLeaseMillis)));
        long status = (Long) r.get(0);
        Parked p = status == 1 ? Parked.PARKED : status == 2 ? Parked.ALREADY : Parked.FULL;
        return new ParkReply(p, (Long) r.get(1), (Long) r.get(2) == 1);
    }

    /**
     * One step of draining, by drain token {@code token}: {@link DrainStep#OTHER_DRAINER} when another drain
     * token drains the key; {@link DrainStep#EMPTY} or {@link DrainStep#EMPTY_NO_DRAINER} when nothing is parked
     * (then the key's drainer record is gone); else the head item, with {@code token} the drainer for another
     * {@code drainerLeaseMillis}.
     *
     * @throws LockException when Redis fails
     */
    public DrainStep drainStep(String token, long drainerLeaseMillis) {
        while (true) {
            List<?> r = (List<?>) run(
                    LockLua.DRAIN,
                    List.of(parked, items, attempts, drainer),
                    List.of(bytes(token), bytes(drainerLeaseMillis)));
            long status = (Long) r.get(0);
            if (status == 0) {
                return DrainStep.OTHER_DRAINER;
            }
            if (status == 1) {
                return (Long) r.get(1) == 1 ? DrainStep.EMPTY : DrainStep.EMPTY_NO_DRAINER;
            }
            if (status == 2) {
                return new DrainStep(
                        string(r.get(1)),
                        string(r.get(2)),
                        ((Long) r.get(3)).intValue(),
                        (Long) r.get(4),
                        0,
                        after(r, 5));
            }
        }
    }

    /**
     * The step between two items, by drain token {@code token} holding the key's lock: removes {@code ranId}
     * when it is the head (as {@link #pop}), then reads the next step as {@link #drainStep} does. When there is
     * a next head and the lock key holds exactly {@code lockToken} (no other process queued for the key), the
     * fencing counter is raised for the next item and the step's {@link DrainStep#fence()} is its fencing token:
     * the caller may then go on holding the key for it ({@link RedisLock#continueHold(long)}) instead of
     * releasing and acquiring it again. One round trip (drain-next.lua); a resend removes nothing more.
     *
     * @param lockToken the caller's lock token ({@link RedisLock#holdToken()}), or null to release anyway
     * @throws LockException when Redis fails
     */
    public DrainStep next(String ranId, String token, long drainerLeaseMillis, byte[] lockToken) {
        byte[] ran = bytes(ranId);
        while (true) {
            List<?> r = (List<?>) run(
                    LockLua.DRAIN_NEXT,
                    List.of(parked, items, attempts, drainer, lockKey, fence),
                    List.of(bytes(token), bytes(drainerLeaseMillis), ran, lockToken == null ? new byte[0] : lockToken));
            long status = (Long) r.get(0);
            if (status == 0) {
                return DrainStep.OTHER_DRAINER;
            }
            if (status == 1) {
                return (Long) r.get(1) == 1 ? DrainStep.EMPTY : DrainStep.EMPTY_NO_DRAINER;
            }
            if (status == 2) {
                return new DrainStep(
                        string(r.get(1)),
                        string(r.get(2)),
                        ((Long) r.get(3)).intValue(),
                        (Long) r.get(4),
                        (Long) r.get(5),
                        after(r, 6));
            }
            ran = new byte[0]; // {3}: popped already; go on reading
        }
    }

    /**
     * A step of draining: {@link #OTHER_DRAINER}, {@link #EMPTY}, or the head item.
     *
     * @param id the head's id, null for the two constants
     * @param payload the head's payload
     * @param failedAttempts how often the head's run failed so far
     * @param size items parked, the head included
     * @param fence from {@link #next}: the head's fencing token when the caller may go on holding the key for it,
     *     else 0
     * @param after the id of the item after the head, null when there is none
     */
    public record DrainStep(String id, String payload, int failedAttempts, long size, long fence, String after) {
        /** Another live drain token drains the key. */
        public static final DrainStep OTHER_DRAINER = new DrainStep(null, null, 0, -1, 0, null);
        /** Nothing is parked; the caller was the key's drainer, and the key has none any more. */
        public static final DrainStep EMPTY = new DrainStep(null, null, 0, 0, 0, null);
        /** Nothing is parked, and the key had no drainer: the caller's own park may not have run yet. */
        public static final DrainStep EMPTY_NO_DRAINER = new DrainStep(null, null, 0, 0, 0, null);

        /** Whether this step carries a head item. */
        public boolean hasHead() {
            return id != null;
        }
    }

    /**
     * Removes {@code id} when it is the head (it ran, or was dead-lettered). A resend changes nothing.
     *
     * @return whether it was the head
     * @throws LockException when Redis fails
     */
    public boolean pop(String id) {
        return (Long) run(LockLua.POP, List.of(parked, items, attempts), List.of(bytes(id))) == 1;
    }

    /** What {@link #orphanCheck()} and {@link #adoptOrphan} found (orphan.lua). */
    public enum OrphanState {
        /** Nothing is parked. */
        NOTHING_PARKED,
        /** Another live drain token drains the key (its drainer record has not lapsed). */
        DRAINED,
        /** Items are parked and the key has no drainer record: no job will run them ({@link #orphanCheck()}). */
        ORPHANED,
        /** The caller's token is the key's drainer now ({@link #adoptOrphan}). */
        ADOPTED
    }

    /**
     * Whether the key's parked work has a drainer: {@link OrphanState#NOTHING_PARKED}, {@link
     * OrphanState#DRAINED} or {@link OrphanState#ORPHANED}. Changes nothing. One round trip.
     *
     * @throws LockException when Redis fails
     */
    public OrphanState orphanCheck() {
        return orphan("", 0);
    }

    /**
     * Makes {@code token} the key's drainer for {@code drainerLeaseMillis} when items are parked and the key has
     * no live drainer (the caller enqueued the token's job first): {@link OrphanState#ADOPTED} (also when the
     * token was the drainer already: a resend), {@link OrphanState#DRAINED} (another token drains the key) or
     * {@link OrphanState#NOTHING_PARKED}. One round trip.
     *
     * @throws LockException when Redis fails
     */
    public OrphanState adoptOrphan(String token, long drainerLeaseMillis) {
        if (token.isEmpty()) {
            throw new IllegalArgumentException(
                    "drain token is empty for the work parked behind lock '" + keyString + "'");
        }
        return orphan(token, drainerLeaseMillis);
    }

    private OrphanState orphan(String token, long drainerLeaseMillis) {
        long r = (Long) run(LockLua.ORPHAN, List.of(parked, drainer), List.of(bytes(token), bytes(drainerLeaseMillis)));
        return switch ((int) r) {
            case 0 -> OrphanState.NOTHING_PARKED;
            case 1 -> OrphanState.ADOPTED;
            case 2 -> OrphanState.DRAINED;
            default -> OrphanState.ORPHANED;
        };
    }

    /**
     * The Redis key of the parked FIFO ({@code p{e}:parked}): the same for every {@code Parking} of one lock
     * key, so it identifies the key's parked work.
     */
    public String parkedKey() {
        return new String(parked, StandardCharsets.UTF_8);
    }

    /**
     * Counts a failed run of item {@code id}; returns the failed runs so far. One {@code HINCRBY}.
     *
     * @throws LockException when Redis fails
     */
    public long failed(String id) {
        try {
            return redis.hincrBy(attempts, bytes(id), 1);
        } catch (JedisException e) {
            throw new LockException("cannot count a failed run of work parked behind lock '" + keyString + "'", e);
        }
    }

    /**
     * How many items are parked. One {@code LLEN}.
     *
     * @throws LockException when Redis fails
     */
    public long size() {
        try {
            return redis.llen(parked);
        } catch (JedisException e) {
            throw new LockException("cannot read the work parked behind lock '" + keyString + "'", e);
        }
    }

    private Object run(io.github.deferlock.redis.internal.Script script, List<byte[]> keys, List<byte[]> args) {
        try {
            return script.run(redis, keys, args);
        } catch (JedisException e) {
            throw new LockException(
                    "cannot run " + script.name() + " for the work parked behind lock '" + keyString + "'", e);
        }
    }

    /** The id after the head in a reply, at {@code index}; null when there is none (or an older script). */
    private static String after(List<?> r, int index) {
        if (r.size() <= index) {
            return null;
        }
        String id = string(r.get(index));
        return id.isEmpty() ? null : id;
    }

    private static byte[] bytes(Object o) {
        return String.valueOf(o).getBytes(StandardCharsets.UTF_8);
    }

    private static String string(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }
}
