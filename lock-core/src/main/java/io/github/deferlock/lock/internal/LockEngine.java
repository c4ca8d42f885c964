package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.redis.internal.NoticeBus;
import io.github.deferlock.redis.internal.Retry;
import io.github.deferlock.redis.internal.SharedNoticeBus;
import io.github.deferlock.redis.internal.Topology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The life of a hold in one {@code RedisLocks}: acquisition (the {@link LocalGate}, then a {@link
 * HandOffChain hand-off} or {@link CrossProcessContention}), release (a hand-off or {@link LockScripts
 * release.lua}) and loss, with the {@link Watchdog} and the {@link LockEvents}. The mechanisms live in their
 * own classes; this one puts them in order. Threadsafe.
 */
public final class LockEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);

    private final LockConfig config;
    private final UnifiedJedis redis;
    private final LockClock clock;
    private final KeyStates states = new KeyStates();
    private final LastConflicts lastConflicts = new LastConflicts();
    private final Topology topology;
    private final LockScripts scripts;
    private final SharedNoticeBus.Lease notices;
    private final Watchdog watchdog;
    private final WaiterChannels waiterChannels;
    private final CrossProcessContention contention;
    private final LockEvents events;
    private final PermitEngine permits;
    private final byte[] defaultLeaseMillis;
    private volatile boolean closed;

    /** Creates the engine; starts no thread until one is needed. */
    public LockEngine(LockConfig config) {
        this.config = config;
        this.redis = config.redis();
        this.clock = config.clock();
        this.events = new LockEvents(config.listener());
        this.topology = Topology.of(redis);
        this.defaultLeaseMillis =
                Long.toString(config.defaultLease().toMillis()).getBytes(StandardCharsets.US_ASCII);
        this.scripts = new LockScripts(config, redis, topology);
        // one subscription for every RedisLocks of this client and prefix, however many are built (each of its
        // own would hold a pooled connection: 8 of them exhaust Jedis's default pool and every call then hangs)
        this.notices = SharedNoticeBus.lease(
                redis,
                config.keyPrefix(),
                () -> new NoticeBus(
                        topology,
                        "deferlock-subscriber",
                        // the anchor keeps the subscription open between waits; under the prefix for ACL users
                        (config.keyPrefix() + "subscriber:" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)));
        this.watchdog = new Watchdog(this); // reads topology
        this.waiterChannels = new WaiterChannels(notices.bus(), states::existing, watchdog, clock);
        this.contention = new CrossProcessContention(
                clock, scripts, waiterChannels, watchdog, ends, () -> closed, defaultLeaseMillis);
        this.permits = new PermitEngine(
                this, new PermitScripts(redis, topology), scripts, states, watchdog, waiterChannels, events);
    }

    /** The engine's ends of a hold, given to every hold it makes. */
    private final Hold.Ends ends = new Hold.Ends() {
        @Override
        public void accept(Hold hold) {
            release(hold);
        }

        @Override
        public boolean extend(Hold hold, long leaseMillis) {
            return LockEngine.this.extend(hold, leaseMillis);
        }

        @Override
        public void releaseAfter(Hold hold, long keepMillis) {
            end(hold, keepMillis);
        }
    };

    LockConfig config() {
        return config;
    }

    UnifiedJedis redis() {
        return redis;
    }

    LockClock clock() {
        return clock;
    }

    Topology topology() {
        return topology;
    }

    byte[] defaultLeaseMillis() {
        return defaultLeaseMillis;
    }

    PermitEngine permits() {
        return permits;
    }

    LastConflicts lastConflicts() {
        return lastConflicts;
    }

    /** The lock key of {@code name}; validates the name. */
    public byte[] lockKey(String name) {
        return Keys.lockKey(config.keyPrefix(), name);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("RedisLocks is closed");
        }
    }

    /** The local state of {@code name} if any thread of this JVM holds or wants it. */
    KeyState existing(String name) {
        return states.existing(name);
    }

    /**
     * Acquires {@code name}: first the local gate (FIFO among this JVM's contenders), then a handed-off hold
     * or Redis, retrying on release notices and a bounded backoff until the wait runs out.
     *
     * @param waitNanos how long to wait; 0 tries once; ignored when {@code forever}
     * @param leaseMillis the lease
     * @param renew whether the watchdog renews the hold
     * @return the hold, or the conflict with its details
     */
    Outcome acquire(String name, byte[] key, long waitNanos, boolean forever, long leaseMillis, boolean renew)
            throws InterruptedException {
        return acquire(name, key, waitNanos, forever, leaseMillis, renew, false);
    }

    /**
     * Like the other {@code acquire}; with {@code yieldToParked} a Redis acquisition is refused while work is
     * parked behind the key ({@link Parking}).
     */
    Outcome acquire(
            String name,
            byte[] key,
            long waitNanos,
            boolean forever,
            long leaseMillis,
            boolean renew,
            boolean yieldToParked)
            throws InterruptedException {
        checkOpen();
        long start = clock.nanoTime();
        KeyState st = states.enter(name, key);
        boolean gated = false;
        Outcome outcome = null;
        try {
            gated = st.gate.enter(clock, start, waitNanos, forever);
            if (!gated && freeAbandoned(st)) {
                gated = st.gate.tryEnter();
            }
            if (!gated) {
                outcome = Outcome.conflict(0, clock.nanoTime() - start, -1);
            } else {
                // a hand-off is not for a caller that yields to parked work: it would overtake the parked
                // messages; the handed hold is released in Redis instead and the caller contends there
                Hold handed = adoptHanded(st, renew && !yieldToParked);
                outcome = handed != null
                        ? Outcome.acquired(handed, 0, clock.nanoTime() - start)
                        : contention.contend(st, start, waitNanos, forever, leaseMillis, renew, yieldToParked);
            }
            if (outcome.hold() == null) {
                events.conflict(st, outcome.holderTtl());
            } else {
                if (!outcome.hold().renewed) {
                    st.leaseHolder = outcome.hold();
                }
                acquired(outcome.hold(), clock.nanoTime() - start);
            }
            return outcome;
        } finally {
            if (outcome == null || outcome.hold() == null) {
                if (gated) {
                    st.gate.leave();
                }
                sweepHanded(st);
                states.exit(st);
            } // else the hold keeps the gate and its user count until it is released
        }
    }

    /**
     * Takes the hold a releasing local holder handed off, if any (the caller has the gate). It is adopted
     * when it is still held and the caller asked for a watchdog hold like it; otherwise it is released in
     * Redis and the caller contends as usual.
     */
    private Hold adoptHanded(KeyState st, boolean renew) {
        Hold handed = st.handOff.take();
        if (handed == null) {
            return null;
        }
        states.exit(st); // the handed hold's user count: the caller's own now stands for it
        if (renew && handed.isHeld()) {
            return handed;
        }
        releaseHandedInRedis(handed);
        return null;
    }

    /**
     * A handed-off hold nobody came for (its waiters gave up or were interrupted) is released in Redis by
     * whoever leaves the key's gate queue last: anyone who gets the gate while no one is queued for it.
     */
    private void sweepHanded(KeyState st) {
        if (!st.gate.tryEnterUnqueued()) {
            return;
        }
        try {
            Hold handed = st.handOff.take();
            if (handed != null) {
                states.exit(st);
                releaseHandedInRedis(handed);
            }
        } finally {
            st.gate.leave();
        }
    }

    /** Ends a handed-off hold nobody adopted: out of the watchdog, compare-and-delete in Redis. */
    private void releaseHandedInRedis(Hold handed) {
        if (handed.finish() == Hold.RELEASED) {
            return;
        }
        watchdog.remove(handed);
        KeyState st = handed.state;
        try {
            Retry.QUICK_CONNECTION_ERRORS.call(() -> scripts.release(st, handed.token));
        } catch (JedisException e) {
            LOG.debug("cannot release the unadopted hand-off of lock '{}'; it expires with its lease", st.keyString, e);
        }
    }

    /**
     * Hands {@code hold} (just finished, it was held) to the next local waiter instead of releasing it in
     * Redis when {@link HandOffChain#allows} it: the key stays held under the same token and the waiter gets
     * the next fencing token of the reserved block.
     *
     * @return whether the hold was handed off (the gate is then released and the user count moved on)
     */
    private boolean handOff(Hold hold) {
        KeyState st = hold.state;
        if (closed || !st.gate.hasWaiters()) {
            return false;
        }
        long now = clock.nanoTime();
        if (!HandOffChain.allows(hold, now)) {
            return false;
        }
        if (waitedForElsewhere(hold)) {
            return false; // a waiter of another process is queued: the key goes to it through Redis
        }
        Hold next = hold.successor(now);
        if (next == null) {
            return false;
        }
        watchdog.add(next);
        watchdog.remove(hold);
        watchdog.confirmSoon(next); // the key may be gone since the last confirmation: ask Redis at once
        st.handOff.hand(next);
        st.gate.leave();
        sweepHanded(st);
        return true;
    }

    /**
     * Continues {@code hold} (held once by the calling thread) as a new acquisition with fencing token {@code
     * fence}, which Redis issued for it while the key held the hold's token and no other process was queued
     * for the key ({@link Parking#next}): no Redis call here. Refused (null, nothing changed) when the engine is
     * closed, a local thread waits for the key, the hold is not a watchdog hold with at least half a lease of
     * validity left, or {@code fence} is not above its fencing token. The listener hears a release and an
     * acquisition, as for a local hand-off.
     *
     * @return the new hold, or null when refused; a hold lost meanwhile gives a new hold that is lost too, so
     *     the caller's release reports the loss
     */
    Hold continueHold(Hold hold, long fence) {
        KeyState st = hold.state;
        long now = clock.nanoTime();
        if (closed
                || st.gate.hasWaiters()
                || !hold.renewed
                || !hold.isActive()
                || fence <= hold.fencingToken
                || hold.validUntil() - now < hold.leaseNanos / 2) {
            return null;
        }
        Hold next = hold.continued(now, fence);
        if (next == null) {
            return null;
        }
        int before = hold.finish();
        if (before != Hold.HELD) {
            Throwable cause = hold.lostCause();
            next.markLost(cause != null ? cause : new LockException("lock '" + st.keyString + "' was lost"));
            return next;
        }
        watchdog.add(next);
        watchdog.remove(hold);
        events.released(st, now - hold.acquiredAt);
        acquired(next, 0);
        return next;
    }

    /**
     * Whether a waiter of another process is queued for the key of {@code hold} (the key is marked), so a
     * local hand-off would overtake it. One {@code GET}, sent only when a local thread waits for the key; on a
     * connection error the hand-off goes ahead (the watchdog confirms the key at once).
     */
    private boolean waitedForElsewhere(Hold hold) {
        try {
            return scripts.markedAsWaitedFor(hold.state, hold.token);
        } catch (JedisException e) {
            LOG.debug("cannot check the waiter queue of lock '{}' before a hand-off", hold.state.keyString, e);
            return false;
        }
    }

    /**
     * For a contender the gate refused: when the gate's holder has an explicit lease and Redis no longer holds
     * its key for it (its lease ran out, the key was deleted or taken), that holder is ended here (marked lost,
     * its gate and user count given up), so a hold nobody released never blocks this JVM's contenders longer
     * than Redis keeps its key. One {@code GET}, only on such a local conflict.
     *
     * @return whether the gate was freed
     */
    private boolean freeAbandoned(KeyState st) {
        Hold h = st.leaseHolder;
        if (h == null || h.renewed) {
            return false;
        }
        boolean gone;
        try {
            gone = !h.isHeld() || !scripts.holds(st, h.token);
        } catch (JedisException e) {
            return false; // cannot tell: the gate stays as it is
        }
        if (!gone) {
            return false;
        }
        int before = h.finish();
        if (before == Hold.RELEASED) {
            return false; // its own release got there first and frees the gate
        }
        if (st.leaseHolder == h) {
            st.leaseHolder = null;
        }
        if (before == Hold.HELD) {
            LockException cause = new LockException(
                    "lock '" + st.keyString + "' ran out of its lease (or its key was removed) before its release");
            h.markLostQuietly(cause);
            events.lost(h, cause);
        }
        st.gate.leave();
        states.exit(st);
        return true;
    }

    /** Ends a thread-bound or handle hold: compare-and-delete in Redis, then the local gate. */
    void release(Hold hold) {
        end(hold, 0);
    }

    /**
     * {@link io.github.deferlock.lock.LockLease#extend}: compare-and-{@code PEXPIRE} of the hold's key to the
     * new lease (renew.lua with one key; safe to resend). A key that is gone or held by another owner marks the
     * hold lost.
     */
    boolean extend(Hold hold, long leaseMillis) {
        if (!hold.isActive()) {
            return false;
        }
        KeyState st = hold.state;
        long sentAt = clock.nanoTime();
        List<?> reply;
        try {
            reply = Retry.QUICK_CONNECTION_ERRORS.call(() -> (List<?>) LockLua.RENEW.run(
                    redis,
                    List.of(st.key),
                    List.of(Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII), hold.token)));
        } catch (JedisException e) {
            throw new LockException("cannot extend lock '" + st.keyString + "'", e);
        }
        if (Long.valueOf(1).equals(reply.get(0))) {
            hold.extendedAt(sentAt, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            return true;
        }
        lost(hold, new LockException("lock '" + st.keyString + "' was gone or held by another owner at extend"));
        return false;
    }

    /**
     * Ends a hold; with {@code keepMillis} positive the key stays held in Redis that much longer
     * (compare-and-{@code PEXPIRE}, no hand-off, no release notice) instead of the compare-and-delete.
     */
    private void end(Hold hold, long keepMillis) {
        int before = hold.finish();
        if (before == Hold.RELEASED) {
            return;
        }
        KeyState st = hold.state;
        long now = clock.nanoTime();
        if (keepMillis <= 0 && before == Hold.HELD && handOff(hold)) {
            events.released(st, now - hold.acquiredAt);
            return;
        }
        if (hold.renewed) {
            watchdog.remove(hold);
        }
        boolean deleted = false;
        LockException failure = null;
        try {
            // safe to repeat after a connection error (a dead pooled connection after a restart): the script
            // compares the token, and a resend recognises its own earlier release (reply 3); the kept form
            // is a compare-and-PEXPIRE, which a resend repeats harmlessly
            long reply = keepMillis <= 0
                    ? Retry.QUICK_CONNECTION_ERRORS.call(() -> scripts.release(st, hold.token))
                    : (Long) Retry.QUICK_CONNECTION_ERRORS
                            .call(() -> (List<?>) LockLua.RENEW.run(
                                    redis,
                                    List.of(st.key),
                                    List.of(Long.toString(keepMillis).getBytes(StandardCharsets.US_ASCII), hold.token)))
                            .get(0);
            deleted = reply != 0;
        } catch (JedisException e) {
            failure =
                    new LockException("cannot release lock '" + st.keyString + "'; the key expires with its lease", e);
        } finally {
            if (st.leaseHolder == hold) {
                st.leaseHolder = null;
            }
            st.gate.leave();
            states.exit(st);
        }
        if (before == Hold.LOST || (failure == null && !deleted)) {
            Throwable cause = before == Hold.LOST
                    ? hold.lostCause()
                    : new LockException("lock '" + st.keyString + "' was gone or held by another owner at release");
            if (before == Hold.HELD) {
                events.lost(hold, cause);
            }
            LockLostException lost = new LockLostException(st.keyString, hold.fencingToken, cause);
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            throw lost;
        }
        if (failure != null) {
            throw failure;
        }
        events.released(st, now - hold.acquiredAt);
    }

    /** Marks {@code hold} lost (once) and tells the listener. */
    void lost(Hold lostHold, Throwable cause) {
        Hold hold = lostHold;
        while (!hold.markLost(cause)) {
            hold = hold.lostSuccessor(cause); // handed off since the renewal was sent: the successor holds the key
            if (hold == null) {
                return;
            }
        }
        watchdog.remove(hold);
        LOG.warn(
                "lock '{}' (fencing token {}) was lost: {}",
                hold.state.keyString,
                hold.fencingToken,
                cause.getMessage());
        events.lost(hold, cause);
    }

    /**
     * Tells the listener about a new hold. An unchecked exception of the listener is logged; an {@link Error}
     * is rethrown after the hold is released, so no listener failure leaves a lock held.
     */
    private void acquired(Hold hold, long waitedNanos) {
        try {
            events.acquired(hold.state, hold.fencingToken, waitedNanos);
        } catch (Error e) {
            try {
                release(hold);
            } catch (RuntimeException | Error release) {
                e.addSuppressed(release);
            }
            throw e;
        }
    }

    /** Logs one WARN when Redis may evict lock keys ({@link EvictionPolicyCheck}); never fails. */
    public void checkEvictionPolicy() {
        EvictionPolicyCheck.run(redis, config.keyPrefix());
    }

    /**
     * Stops the watchdog and leaves the release-notice subscription (closed with the last {@code RedisLocks} of
     * the client and prefix). Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (KeyState st : states.all()) {
            sweepHanded(st);
        }
        waiterChannels.close();
        watchdog.close();
        notices.close();
    }

    @Override
    public String toString() {
        return "[prefix=" + config.keyPrefix() + ", defaultLease=" + config.defaultLease() + ", watchdog="
                + config.watchdog() + (closed ? ", closed" : "") + "]";
    }
}
