package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.lock.LockException;
import io.github.deferlock.redis.internal.Retry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The contention of this JVM's one contender for a key (it has the {@link LocalGate}) with other processes:
 * asks Redis, and while the key is taken waits in the key's FIFO waiter queue in Redis (waiters.lua) for the
 * notice on its own waiter channel ({@link WaiterChannels}) that the key is reserved for it, polling with a {@link PollBackoff} for a
 * notice that was missed (each poll also refreshes its place in the queue), until the key is won or the wait
 * runs out; then it leaves the queue. Threadsafe.
 */
final class CrossProcessContention {
    private static final Logger LOG = LoggerFactory.getLogger(CrossProcessContention.class);

    private final LockClock clock;
    private final LockScripts scripts;
    private final WaiterChannels channels;
    private final Watchdog watchdog;
    private final Hold.Ends releaser;
    private final BiConsumer<Hold, Throwable> loser;
    private final BooleanSupplier closed;
    private final byte[] defaultLeaseMillis;
    private final SecureRandom random = new SecureRandom();

    private static final long WAITER_LIFE_NANOS = TimeUnit.MILLISECONDS.toNanos(LockScripts.WAITER_LIFE_MILLIS);

    CrossProcessContention(
            LockClock clock,
            LockScripts scripts,
            WaiterChannels channels,
            Watchdog watchdog,
            Hold.Ends releaser,
            BiConsumer<Hold, Throwable> loser,
            BooleanSupplier closed,
            byte[] defaultLeaseMillis) {
        this.clock = clock;
        this.scripts = scripts;
        this.channels = channels;
        this.watchdog = watchdog;
        this.releaser = releaser;
        this.loser = loser;
        this.closed = closed;
        this.defaultLeaseMillis = defaultLeaseMillis;
    }

    /**
     * Contends in Redis until the key is won or the wait runs out; the caller has {@code st}'s gate.
     *
     * @param start when the acquisition began ({@link LockClock} reading)
     * @param waitNanos how long to wait from {@code start}; ignored when {@code forever}
     * @param renew whether the watchdog renews the hold (it then leases {@code defaultLease})
     * @return the hold, or the conflict with the holder's TTL Redis last reported
     */
    Outcome contend(KeyState st, long start, long waitNanos, boolean forever, long leaseMillis, boolean renew)
            throws InterruptedException {
        return contend(st, start, waitNanos, forever, leaseMillis, renew, false);
    }

    /** Like the other {@code contend}; with {@code yieldToParked} the key is refused while work is parked behind it. */
    Outcome contend(
            KeyState st,
            long start,
            long waitNanos,
            boolean forever,
            long leaseMillis,
            boolean renew,
            boolean yieldToParked)
            throws InterruptedException {
        byte[] lease = renew ? defaultLeaseMillis : Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        int attempts = 0;
        PollBackoff backoff = new PollBackoff();
        WaiterChannels.Use watching = null;
        boolean queued = false; // this engine may have an entry in the key's waiter queue
        long lastSentAt = 0;
        channels.dropOfferedGrant(st); // a notice before this wait's first request belongs to an earlier wait
        try {
            while (true) {
                long seen = st.signal.count();
                if (queued && !yieldToParked && scripts.takesGrantsFromNotices()) {
                    long fence = channels.takeGrant(st);
                    Hold granted = fence > 0 ? adoptGrant(st, fence, lastSentAt, leaseMillis, leaseNanos, renew) : null;
                    if (granted != null) {
                        queued = false; // the release took the waiter out of the queue
                        return Outcome.acquired(granted, attempts, clock.nanoTime() - start);
                    }
                }
                byte[] token = newToken();
                long sentAt = clock.nanoTime();
                lastSentAt = sentAt;
                attempts++;
                boolean willWait = forever || start + waitNanos - sentAt > 0;
                LockScripts.Queue queue = !queued
                        ? (willWait ? LockScripts.Queue.NEW : LockScripts.Queue.NONE)
                        : (willWait ? LockScripts.Queue.WAIT : LockScripts.Queue.LAST);
                // a bounded wait bounds the wait for a pooled connection too (BoundedBorrow; at least its minimum)
                long borrow = forever ? -1 : Math.max(0, start + waitNanos - sentAt);
                long[] reply = scripts.acquire(st, token, lease, renew, queue, borrow, yieldToParked);
                if (reply[0] == 1) {
                    queued = false; // a grant takes the caller out of the queue
                    channels.knownFence(st, reply[1]);
                    if (reply[2] == 1) {
                        token = scripts.grantToken(reply[1]); // granted by a release; now extended to the lease
                    }
                    long first = reply[1] - (renew ? HandOffChain.BLOCK : 1) + 1;
                    Hold hold = new Hold(clock, releaser, st, token, first, reply[1], sentAt, leaseNanos, renew);
                    if (renew) {
                        watchdog.add(hold);
                    }
                    return Outcome.acquired(hold, attempts, clock.nanoTime() - start);
                }
                queued = queue == LockScripts.Queue.NEW || queue == LockScripts.Queue.WAIT;
                long ttl = reply[1];
                long now = clock.nanoTime();
                long left = forever ? Long.MAX_VALUE : start + waitNanos - now;
                if (left <= 0) {
                    return Outcome.conflict(attempts, now - start, Math.max(ttl, -1));
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (watching == null && !closed.getAsBoolean()) {
                    // a new subscription signals once it is in place too, so a notice sent before is not missed
                    watching = channels.watch(st, scripts.waiterChannel(st));
                }
                st.signal.await(seen, backoff.next(left, ttl));
            }
        } finally {
            if (watching != null) {
                watching.close();
            }
            if (queued) {
                leave(st);
            }
        }
    }

    /**
     * Takes the key a release granted to this engine's waiter (release.lua), as the notice announced: no
     * request. The key lives only as long as the waiter's queue entry would have, at least one entry life
     * after {@code lastSentAt} (the release ran after the waiter's last request was sent, and the entry's
     * deadline was at least that request plus its life), so the hold is valid until then and is extended to
     * its lease off the caller's thread: a watchdog hold by a renewal at once, a hold with a lease by a
     * compare-and-{@code PEXPIRE} to it. A grant not extended by then is reported lost.
     *
     * @return the hold, or null when less than half the grant's life may be left (the caller asks Redis,
     *     which finds the grant and extends it in the same script, acquire.lua)
     */
    private Hold adoptGrant(
            KeyState st, long fence, long lastSentAt, long leaseMillis, long leaseNanos, boolean renew) {
        long now = clock.nanoTime();
        long until = lastSentAt + Math.min(WAITER_LIFE_NANOS, leaseNanos);
        if (until - now < Math.min(WAITER_LIFE_NANOS, leaseNanos) / 2) {
            return null; // the notice came late (a stalled process): less than half the grant's life may be left
        }
        long first = fence - (renew ? HandOffChain.BLOCK : 1) + 1;
        Hold hold = Hold.granted(
                clock, releaser, st, scripts.grantToken(fence), first, fence, now, until, leaseNanos, renew);
        if (renew) {
            watchdog.add(hold);
            watchdog.confirmSoon(hold);
        } else {
            watchdog.runLater(() -> extendGrant(hold, leaseMillis, until), 0);
        }
        watchdog.runLater(() -> lostUnlessExtended(hold, until), until - now);
        return hold;
    }

    /** Extends a granted hold with a lease to that lease, unless its holder released or extended it already. */
    private void extendGrant(Hold hold, long leaseMillis, long grantedUntil) {
        if (!hold.isActive() || hold.validUntil() != grantedUntil) {
            return;
        }
        try {
            releaser.extend(hold, leaseMillis); // a refusal marks the hold lost
        } catch (RuntimeException e) {
            LOG.debug("cannot extend the granted lock '{}' to its lease", hold.state.keyString, e);
        }
    }

    /** At the end of a grant's short life: the hold is lost unless it was extended (or released) meanwhile. */
    private void lostUnlessExtended(Hold hold, long grantedUntil) {
        if (!hold.isActive() || hold.validUntil() != grantedUntil) {
            return;
        }
        long left = grantedUntil - clock.nanoTime();
        if (left > 0) {
            watchdog.runLater(() -> lostUnlessExtended(hold, grantedUntil), left);
            return;
        }
        loser.accept(
                hold,
                new LockException(
                        "lock '" + hold.state.keyString
                                + "' was handed to this process by a release but could not be extended to its lease in time",
                        hold.lastRenewError()));
    }

    /** Takes this engine's contender out of the key's waiter queue; a failure only delays the queue. */
    private void leave(KeyState st) {
        try {
            long passedOn = Retry.QUICK_CONNECTION_ERRORS.call(() -> scripts.leave(st));
            if (passedOn > 3) {
                channels.knownFence(
                        st, passedOn); // a grant this waiter did not take: its notice, if still coming, is stale
            }
        } catch (RuntimeException e) {
            LOG.debug(
                    "cannot leave the waiter queue of lock '{}'; the entry expires within {} ms",
                    st.keyString,
                    LockScripts.WAITER_LIFE_MILLIS,
                    e);
        }
    }

    private byte[] newToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes).getBytes(StandardCharsets.US_ASCII);
    }
}
