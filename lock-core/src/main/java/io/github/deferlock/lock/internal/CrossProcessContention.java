package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.redis.internal.Retry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
    private final Consumer<Hold> releaser;
    private final BooleanSupplier closed;
    private final byte[] defaultLeaseMillis;
    private final SecureRandom random = new SecureRandom();

    CrossProcessContention(
            LockClock clock,
            LockScripts scripts,
            WaiterChannels channels,
            Watchdog watchdog,
            Consumer<Hold> releaser,
            BooleanSupplier closed,
            byte[] defaultLeaseMillis) {
        this.clock = clock;
        this.scripts = scripts;
        this.channels = channels;
        this.watchdog = watchdog;
        this.releaser = releaser;
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
        try {
            while (true) {
                long seen = st.signal.count();
                byte[] token = newToken();
                long sentAt = clock.nanoTime();
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

    /** Takes this engine's contender out of the key's waiter queue; a failure only delays the queue. */
    private void leave(KeyState st) {
        try {
            Retry.QUICK_CONNECTION_ERRORS.call(() -> {
                scripts.leave(st);
                return null;
            });
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
