package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.lock.LockLostException;
import io.github.deferlock.lock.PermitHolder;
import io.github.deferlock.redis.internal.Retry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The life of a permit in one engine ({@link PermitScripts}): acquisition (no local gate: several threads of
 * one JVM may hold permits of one name; each waiting call has its own entry in the name's FIFO waiter queue in
 * Redis, and a notice on the process's waiter channel wakes the first local waiter of the name, which asks
 * again and passes the wake-up on when it cannot use it: {@link PermitWaiters}), release,
 * extension and loss. Renewal is the engine's {@link Watchdog}; events are the engine's {@link LockEvents}.
 * Threadsafe.
 */
final class PermitEngine {
    private static final Logger LOG = LoggerFactory.getLogger(PermitEngine.class);

    private final LockEngine engine;
    private final LockClock clock;
    private final PermitScripts scripts;
    private final LockScripts lockScripts;
    private final KeyStates states;
    private final Watchdog watchdog;
    private final WaiterChannels channels;
    private final LockEvents events;
    private final String waiterIdPrefix;
    private final AtomicLong sequence = new AtomicLong();
    private final SecureRandom random = new SecureRandom();

    private final Hold.Ends ends = new Hold.Ends() {
        @Override
        public void accept(Hold hold) {
            end((PermitHold) hold, 0);
        }

        @Override
        public boolean extend(Hold hold, long leaseMillis) {
            return PermitEngine.this.extend((PermitHold) hold, leaseMillis);
        }

        @Override
        public void releaseAfter(Hold hold, long keepMillis) {
            end((PermitHold) hold, keepMillis);
        }
    };

    PermitEngine(
            LockEngine engine,
            PermitScripts scripts,
            LockScripts lockScripts,
            KeyStates states,
            Watchdog watchdog,
            WaiterChannels channels,
            LockEvents events) {
        this.engine = engine;
        this.clock = engine.clock();
        this.scripts = scripts;
        this.lockScripts = lockScripts;
        this.states = states;
        this.watchdog = watchdog;
        this.channels = channels;
        this.events = events;
        this.waiterIdPrefix = new String(lockScripts.waiterId(), StandardCharsets.US_ASCII) + ".";
    }

    /**
     * Acquires a permit of {@code name}: asks Redis, and while none is free for it waits in the name's waiter
     * queue for a notice on this process's waiter channel, polling with a {@link PollBackoff}, until a permit is
     * granted or the wait runs out; then leaves the queue.
     */
    Outcome acquire(String name, byte[] key, int limit, long waitNanos, long leaseMillis, boolean renew)
            throws InterruptedException {
        engine.checkOpen();
        long start = clock.nanoTime();
        KeyState st = states.enter(name, key);
        byte[] waiter = (waiterIdPrefix + sequence.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        int attempts = 0;
        PollBackoff backoff = new PollBackoff();
        WaiterChannels.Use watching = null;
        boolean queued = false;
        PermitWaiters.Waiter me = st.permitWaiters.join();
        boolean woken = false;
        Outcome outcome;
        try {
            while (true) {
                byte[] token = newToken();
                long sentAt = clock.nanoTime();
                attempts++;
                boolean willWait = start + waitNanos - sentAt > 0;
                PermitScripts.Queue queue = !queued
                        ? (willWait ? PermitScripts.Queue.NEW : PermitScripts.Queue.NONE)
                        : (willWait ? PermitScripts.Queue.WAIT : PermitScripts.Queue.LAST);
                long borrow = Math.max(0, start + waitNanos - sentAt);
                long[] reply = scripts.acquire(st, name, token, leaseMillis, limit, waiter, queue, borrow);
                if (reply[0] == 1) {
                    queued = false;
                    PermitHold hold = new PermitHold(
                            clock, ends, st, token, (int) reply[1], limit, reply[2], sentAt, leaseNanos, renew);
                    if (renew) {
                        watchdog.add(hold);
                    }
                    outcome = Outcome.acquired(hold, attempts, clock.nanoTime() - start);
                    break;
                }
                queued = queue == PermitScripts.Queue.NEW || queue == PermitScripts.Queue.WAIT;
                if (woken) {
                    me.passOnOne(); // the notice was for a waiter behind this one, or a "look again"
                }
                long ttl = reply[1];
                long now = clock.nanoTime();
                long left = start + waitNanos - now;
                if (left <= 0) {
                    outcome = Outcome.conflict(attempts, now - start, Math.max(ttl, -1));
                    break;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (watching == null) {
                    watching = channels.watch(st, lockScripts.waiterChannel(st));
                }
                woken = me.await(backoff.next(left, ttl));
            }
        } finally {
            me.leave(); // wake-ups it did not use (a second permit freed meanwhile) go to the next local waiter
            if (watching != null) {
                watching.close();
            }
            if (queued) {
                leave(st, waiter, limit);
            }
            states.exit(st);
        }
        if (outcome.hold() == null) {
            events.conflict(st, outcome.holderTtl());
        } else {
            try {
                events.acquired(st, outcome.hold().fencingToken, clock.nanoTime() - start);
            } catch (Error e) {
                try {
                    outcome.hold().release();
                } catch (RuntimeException | Error release) {
                    e.addSuppressed(release);
                }
                throw e;
            }
        }
        return outcome;
    }

    private void leave(KeyState st, byte[] waiter, int limit) {
        try {
            Retry.QUICK_CONNECTION_ERRORS.call(() -> {
                scripts.leave(st, waiter, limit);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.debug(
                    "cannot leave the waiter queue of permits '{}'; the entry expires within {} ms",
                    st.keyString,
                    LockScripts.WAITER_LIFE_MILLIS,
                    e);
        }
    }

    /** {@link io.github.deferlock.lock.LockLease#extend}: sets the permit's lease (permit-renew.lua). */
    boolean extend(PermitHold hold, long leaseMillis) {
        if (!hold.isActive()) {
            return false;
        }
        long sentAt = clock.nanoTime();
        List<?> reply;
        try {
            reply = Retry.QUICK_CONNECTION_ERRORS.call(() -> PermitScripts.renew(
                    engine.redis(), List.of(hold), Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII)));
        } catch (JedisException e) {
            throw new LockException("cannot extend a permit of '" + hold.state.name + "'", e);
        }
        if (Long.valueOf(1).equals(reply.get(0))) {
            hold.extendedAt(sentAt, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            return true;
        }
        engine.lost(
                hold,
                new LockException("the permit of '" + hold.state.name + "' (slot " + hold.slot
                        + ") was gone at extend: its lease ran out"));
        return false;
    }

    /**
     * Ends a permit: the release script, or with {@code keepMillis} positive its lease set to that (the permit
     * stays taken until then, no notice).
     */
    private void end(PermitHold hold, long keepMillis) {
        int before = hold.finish();
        if (before == Hold.RELEASED) {
            return;
        }
        KeyState st = hold.state;
        long now = clock.nanoTime();
        if (hold.renewed) {
            watchdog.remove(hold);
        }
        boolean released = false;
        LockException failure = null;
        try {
            // safe to resend: a resent release finds its own release record (reply 3); the kept form sets a lease
            long reply = keepMillis <= 0
                    ? Retry.QUICK_CONNECTION_ERRORS.call(() -> scripts.release(hold))
                    : (Long) Retry.QUICK_CONNECTION_ERRORS
                            .call(() -> PermitScripts.renew(
                                    engine.redis(),
                                    List.of(hold),
                                    Long.toString(keepMillis).getBytes(StandardCharsets.US_ASCII)))
                            .get(0);
            released = reply != 0;
        } catch (JedisException e) {
            failure = new LockException("cannot release a permit of '" + st.name + "'; it expires with its lease", e);
        }
        if (before == Hold.LOST || (failure == null && !released)) {
            Throwable cause = before == Hold.LOST
                    ? hold.lostCause()
                    : new LockException("the permit of '" + st.name + "' (slot " + hold.slot
                            + ") was gone at release: its lease ran out");
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

    /** The live holders of {@code name}. */
    List<PermitHolder> holders(byte[] key, String name, int limit) {
        engine.checkOpen();
        return scripts.holders(key, name, limit);
    }

    private byte[] newToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes).getBytes(StandardCharsets.US_ASCII);
    }
}
