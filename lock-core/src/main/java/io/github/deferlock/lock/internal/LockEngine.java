package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockListener;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.redis.internal.FallbackPoll;
import io.github.deferlock.redis.internal.NoticeBus;
import io.github.deferlock.redis.internal.ReplicatedCall;
import io.github.deferlock.redis.internal.Retry;
import io.github.deferlock.redis.internal.Topology;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The shared machinery behind one {@code RedisLocks}: per-key local state, the scripts, the watchdog and the
 * release-notice subscriber. Threadsafe.
 */
public final class LockEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);

    /** First fallback poll while waiting on another process; doubles up to {@link #MAX_POLL_NANOS}. */
    static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /**
     * Fencing tokens a watchdog acquisition reserves: its own plus one per local hand-off it may be followed
     * by. So at most {@code HAND_OFF_BLOCK - 1} local holders follow one another without Redis seeing a
     * release, which bounds how long other processes wait behind a busy JVM.
     */
    static final int HAND_OFF_BLOCK = 8;

    private static final byte[] HAND_OFF_BLOCK_ARG =
            Integer.toString(HAND_OFF_BLOCK).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SINGLE_TOKEN_ARG = {'1'};

    /**
     * How long the next local contender holds back after a release that another process was marked as waiting
     * for (release.lua returned 2), so that process's notified contender can take its turn.
     */
    static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /**
     * How long release.lua keeps the token of a release (p{e}:last-release), so a release that a client
     * resends after a lost reply (Jedis's cluster executor, or {@link Retry}) recognises its own success.
     * Longer than any resend window of a sensibly configured client.
     */
    static final long RELEASE_RECORD_MILLIS = 60_000;

    private static final byte[] RELEASE_RECORD_ARG =
            Long.toString(RELEASE_RECORD_MILLIS).getBytes(StandardCharsets.US_ASCII);

    private static final byte[] WILL_WAIT = {'1'};
    private static final byte[] WONT_WAIT = {'0'};

    /** No local hand-off once the Redis acquisition a chain of hand-offs began with is this old. */
    static final long MAX_HAND_OFF_CHAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final LockConfig config;
    private final UnifiedJedis redis;
    private final LockClock clock;
    private final LockListener listener;
    private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final Watchdog watchdog;
    private final Topology topology;
    private final NoticeBus notices;
    private final ReplicatedCall replicated;
    private final byte[] defaultLeaseMillis;
    private final ThreadLocal<LastConflict> lastConflict = new ThreadLocal<>();
    private volatile boolean closed;

    private record LastConflict(String name, Optional<Duration> holderTtl) {}

    /** Creates the engine; starts no thread until one is needed. */
    public LockEngine(LockConfig config) {
        this.config = config;
        this.redis = config.redis();
        this.clock = config.clock();
        this.listener = config.listener();
        this.topology = Topology.of(redis);
        // the anchor keeps the subscription open between waits; under the prefix for ACL users (&prefix*)
        this.notices = new NoticeBus(
                topology,
                "deferlock-subscriber",
                (config.keyPrefix() + "subscriber:" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
        this.replicated = new ReplicatedCall(topology, config.replicas(), config.replicaTimeout());
        this.watchdog = new Watchdog(this); // reads topology
        this.defaultLeaseMillis =
                Long.toString(config.defaultLease().toMillis()).getBytes(StandardCharsets.US_ASCII);
    }

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

    /** The lock key of {@code name}; validates the name. */
    public byte[] lockKey(String name) {
        return Keys.lockKey(config.keyPrefix(), name);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("RedisLocks is closed");
        }
    }

    /** The holder TTL of the current thread's last acquisition of {@code name}, when that one failed. */
    Optional<Duration> lastHolderTtl(String name) {
        LastConflict last = lastConflict.get();
        return last != null && last.name().equals(name) ? last.holderTtl() : Optional.empty();
    }

    /** The local state of {@code name} if any thread of this JVM holds or wants it. */
    KeyState existing(String name) {
        return states.get(name);
    }

    private KeyState enter(String name, byte[] key) {
        return states.compute(name, (n, s) -> {
            KeyState st = s == null ? new KeyState(n, key) : s;
            st.users++;
            return st;
        });
    }

    private void exit(KeyState st) {
        states.computeIfPresent(st.name, (n, s) -> s != st || --s.users > 0 ? s : null);
    }

    /**
     * Acquires {@code name}: first the local gate (FIFO among this JVM's contenders), then Redis, retrying on
     * release notices and a bounded backoff until the wait runs out.
     *
     * @param waitNanos how long to wait; 0 tries once; ignored when {@code forever}
     * @param leaseMillis the lease
     * @param renew whether the watchdog renews the hold
     */
    Outcome acquire(String name, byte[] key, long waitNanos, boolean forever, long leaseMillis, boolean renew)
            throws InterruptedException {
        checkOpen();
        long start = clock.nanoTime();
        KeyState st = enter(name, key);
        boolean gated = false;
        Outcome outcome = null;
        try {
            gated = enterGate(st, start, waitNanos, forever);
            if (!gated) {
                outcome = new Outcome(null, 0, clock.nanoTime() - start, -1);
            } else {
                Hold handed = adoptHanded(st, renew);
                outcome = handed != null
                        ? new Outcome(handed, 0, clock.nanoTime() - start, -1)
                        : contend(st, start, waitNanos, forever, leaseMillis, renew);
            }
            if (outcome.hold() == null) {
                lastConflict.set(new LastConflict(name, outcome.holderTtl()));
                notifyConflict(st, outcome.holderTtlMillis());
            } else {
                if (lastConflict.get() != null) {
                    lastConflict.remove();
                }
                acquired(outcome.hold(), clock.nanoTime() - start);
            }
            return outcome;
        } finally {
            if (outcome == null || outcome.hold() == null) {
                if (gated) {
                    st.gate.release();
                }
                sweepHanded(st);
                exit(st);
            } // else the hold keeps the gate and its user count until it is released
        }
    }

    /**
     * Takes the hold a releasing local holder handed off, if any (the caller has the gate). It is adopted
     * when it is still held and the caller asked for a watchdog hold like it; otherwise it is released in
     * Redis and the caller contends as usual.
     */
    private Hold adoptHanded(KeyState st, boolean renew) {
        Hold handed = st.takeHanded();
        if (handed == null) {
            return null;
        }
        exit(st); // the handed hold's user count: the caller's own now stands for it
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
        if (st.gate.hasQueuedThreads() || !st.gate.tryAcquire()) {
            return;
        }
        try {
            Hold handed = st.takeHanded();
            if (handed != null) {
                exit(st);
                releaseHandedInRedis(handed);
            }
        } finally {
            st.gate.release();
        }
    }

    /** Runs release.lua for {@code token}; returns its reply (0 lost, 1 or 2 deleted, 3 already released). */
    private long releaseInRedis(KeyState st, byte[] token) {
        Object reply = LockLua.RELEASE.run(
                redis,
                List.of(st.key, st.lastRelease),
                List.of(token, st.channel, topology.publishFlag(), RELEASE_RECORD_ARG));
        return (Long) reply;
    }

    /** Ends a handed-off hold nobody adopted: out of the watchdog, compare-and-delete in Redis. */
    private void releaseHandedInRedis(Hold handed) {
        if (handed.finish() == Hold.RELEASED) {
            return;
        }
        watchdog.remove(handed);
        KeyState st = handed.state;
        try {
            Retry.QUICK_CONNECTION_ERRORS.call(() -> releaseInRedis(st, handed.token));
        } catch (JedisException e) {
            LOG.debug("cannot release the unadopted hand-off of lock '{}'; it expires with its lease", st.keyString, e);
        }
    }

    /**
     * Hands {@code hold} (just finished, it was held) to the next local waiter instead of releasing it in
     * Redis: the key stays held under the same token and the waiter gets the next fencing token of the
     * reserved block. Only for watchdog holds with tokens left in the block, a chain younger than {@link
     * #MAX_HAND_OFF_CHAIN_NANOS}, and at least half a lease of validity left (renewals are working).
     *
     * @return whether the hold was handed off (the gate is then released and the user count moved on)
     */
    private boolean handOff(Hold hold) {
        KeyState st = hold.state;
        if (!hold.renewed || closed || hold.fencingToken >= hold.fenceLimit || !st.gate.hasQueuedThreads()) {
            return false;
        }
        long now = clock.nanoTime();
        if (now - hold.chainStart >= MAX_HAND_OFF_CHAIN_NANOS || hold.validUntil() - now < hold.leaseNanos / 2) {
            return false;
        }
        Hold next = hold.successor(now);
        if (next == null) {
            return false;
        }
        watchdog.add(next);
        watchdog.remove(hold);
        watchdog.confirmSoon(next); // the key may be gone since the last confirmation: ask Redis at once
        st.hand(next);
        st.gate.release();
        sweepHanded(st);
        return true;
    }

    private boolean enterGate(KeyState st, long start, long waitNanos, boolean forever) throws InterruptedException {
        if (forever) {
            st.gate.acquire();
            return true;
        }
        if (waitNanos == 0) {
            return st.gate.tryAcquire();
        }
        while (true) {
            long left = start + waitNanos - clock.nanoTime();
            if (left <= 0) {
                return st.gate.tryAcquire();
            }
            if (st.enterGate(left)) {
                return true;
            }
        }
    }

    private Outcome contend(KeyState st, long start, long waitNanos, boolean forever, long leaseMillis, boolean renew)
            throws InterruptedException {
        byte[] lease = renew ? defaultLeaseMillis : Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        int attempts = 0;
        FallbackPoll poll = new FallbackPoll(FIRST_POLL_NANOS, MAX_POLL_NANOS);
        NoticeBus.Subscription watching = null;
        try {
            if (st.takeYield()) {
                long left = forever ? YIELD_NANOS : Math.min(YIELD_NANOS, start + waitNanos - clock.nanoTime());
                if (left > 0) {
                    st.await(st.signals(), left);
                }
            }
            while (true) {
                long seen = st.signals();
                byte[] token = newToken();
                long sentAt = clock.nanoTime();
                attempts++;
                boolean willWait = forever || start + waitNanos - sentAt > 0;
                long[] reply = acquireInRedis(
                        st,
                        token,
                        lease,
                        renew ? HAND_OFF_BLOCK_ARG : SINGLE_TOKEN_ARG,
                        willWait ? WILL_WAIT : WONT_WAIT);
                if (reply[0] == 1) {
                    long first = reply[1] - (renew ? HAND_OFF_BLOCK : 1) + 1;
                    Hold hold = new Hold(this, st, token, first, reply[1], sentAt, leaseNanos, renew);
                    if (renew) {
                        watchdog.add(hold);
                    }
                    return new Outcome(hold, attempts, clock.nanoTime() - start, -1);
                }
                long ttl = reply[1];
                long now = clock.nanoTime();
                long left = forever ? Long.MAX_VALUE : start + waitNanos - now;
                if (left <= 0) {
                    return new Outcome(null, attempts, now - start, ttl);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (watching == null && !closed) {
                    watching = notices.watch(st.channel, st::signal);
                }
                long pause = poll.next(left);
                if (ttl >= 0) {
                    pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(ttl + 1));
                }
                st.await(seen, pause);
            }
        } finally {
            if (watching != null) {
                watching.close();
            }
        }
    }

    private byte[] newToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes).getBytes(StandardCharsets.US_ASCII);
    }

    /** Runs the acquire script (with {@code WAIT} when configured); returns {1, fence} or {0, ttl}. */
    private long[] acquireInRedis(KeyState st, byte[] token, byte[] lease, byte[] fenceBlock, byte[] willWait) {
        List<byte[]> keys = List.of(st.key, st.fence);
        List<byte[]> args = List.of(token, lease, fenceBlock, willWait);
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
                releaseInRedis(st, token);
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

    /** Ends a thread-bound or handle hold: compare-and-delete in Redis, then the local gate. */
    void release(Hold hold) {
        int before = hold.finish();
        if (before == Hold.RELEASED) {
            return;
        }
        KeyState st = hold.state;
        long now = clock.nanoTime();
        if (before == Hold.HELD && handOff(hold)) {
            notifyReleased(st, now - hold.acquiredAt);
            return;
        }
        if (hold.renewed) {
            watchdog.remove(hold);
        }
        boolean deleted = false;
        LockException failure = null;
        try {
            // safe to repeat after a connection error (a dead pooled connection after a restart): the script
            // compares the token, and a resend recognises its own earlier release (reply 3)
            long reply = Retry.QUICK_CONNECTION_ERRORS.call(() -> releaseInRedis(st, hold.token));
            deleted = reply != 0;
            if (reply == 2) {
                st.yieldNext(); // another process waits for this key: our next local contender lets it go first
            }
        } catch (JedisException e) {
            failure =
                    new LockException("cannot release lock '" + st.keyString + "'; the key expires with its lease", e);
        } finally {
            st.gate.release();
            exit(st);
        }
        if (before == Hold.LOST || (failure == null && !deleted)) {
            Throwable cause = before == Hold.LOST
                    ? hold.lostCause()
                    : new LockException("lock '" + st.keyString + "' was gone or held by another owner at release");
            if (before == Hold.HELD) {
                notifyLost(hold, cause);
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
        notifyReleased(st, now - hold.acquiredAt);
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
        notifyLost(hold, cause);
    }

    /**
     * Tells the listener about a new hold. An unchecked exception of the listener is logged; an {@link Error}
     * is rethrown after the hold is released, so no listener failure leaves a lock held.
     */
    private void acquired(Hold hold, long waitedNanos) {
        try {
            notifyAcquired(hold.state, hold.fencingToken, waitedNanos);
        } catch (Error e) {
            try {
                release(hold);
            } catch (RuntimeException | Error release) {
                e.addSuppressed(release);
            }
            throw e;
        }
    }

    private void notifyAcquired(KeyState st, long fence, long waitedNanos) {
        try {
            listener.onAcquired(st.keyString, fence, Duration.ofNanos(Math.max(0, waitedNanos)));
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onAcquired", e);
        }
    }

    private void notifyConflict(KeyState st, long ttlMillis) {
        try {
            listener.onConflict(
                    st.keyString, ttlMillis >= 0 ? Optional.of(Duration.ofMillis(ttlMillis)) : Optional.empty());
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onConflict", e);
        }
    }

    private void notifyReleased(KeyState st, long heldNanos) {
        try {
            listener.onReleased(st.keyString, Duration.ofNanos(Math.max(0, heldNanos)));
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onReleased", e);
        }
    }

    private void notifyLost(Hold hold, Throwable cause) {
        try {
            listener.onLost(hold.state.keyString, hold.fencingToken, cause);
        } catch (RuntimeException e) {
            LOG.warn("lock listener failed in onLost", e);
        }
    }

    /**
     * Reads the server's {@code maxmemory} and {@code maxmemory_policy} once ({@code INFO memory}) and logs
     * one WARN when Redis may evict lock keys: a memory limit is set and the policy is not {@code
     * noeviction}. Lock keys carry a TTL, so {@code volatile-*} policies can evict a held lock, and {@code
     * allkeys-*} ones also the fencing counter (tokens stay increasing: acquire.lua raises a counter to the
     * server time). Never fails: when INFO is not permitted or Redis is unreachable it logs at DEBUG. On a
     * cluster the client asks one node.
     */
    public void checkEvictionPolicy() {
        String info;
        try {
            info = redis.info("memory");
        } catch (RuntimeException e) {
            LOG.debug("cannot read the server's maxmemory-policy for locks: {}", e.toString());
            return;
        }
        String policy = null;
        long maxmemory = -1;
        for (String line : info.split("\\r?\\n")) {
            if (line.startsWith("maxmemory_policy:")) {
                policy = line.substring("maxmemory_policy:".length()).trim();
            } else if (line.startsWith("maxmemory:")) {
                try {
                    maxmemory =
                            Long.parseLong(line.substring("maxmemory:".length()).trim());
                } catch (NumberFormatException e) {
                    maxmemory = -1;
                }
            }
        }
        if (policy == null || maxmemory == 0 || policy.equals("noeviction")) {
            return;
        }
        LOG.warn(
                "locks under prefix '{}': the server's maxmemory-policy is {} with maxmemory {}, so under memory"
                        + " pressure Redis may evict a held lock's key (lock keys carry a TTL) and let a second holder"
                        + " in; only the fencing token then protects the resource. Set maxmemory-policy to"
                        + " noeviction for the locks' server (docs/locks.md)",
                config.keyPrefix(),
                policy,
                maxmemory);
    }

    /** Stops the watchdog and the release-notice subscriber. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (KeyState st : states.values()) {
            sweepHanded(st);
        }
        watchdog.close();
        notices.close();
    }

    @Override
    public String toString() {
        return "[prefix=" + config.keyPrefix() + ", defaultLease=" + config.defaultLease() + ", watchdog="
                + config.watchdog() + (closed ? ", closed" : "") + "]";
    }
}
