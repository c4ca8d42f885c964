package io.github.deferlock.lock.internal;

import io.github.deferlock.lock.LockClock;
import io.github.deferlock.redis.internal.NoticeBus;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The contention of this JVM's one contender for a key (it has the {@link LocalGate}) with other processes:
 * asks Redis, and while another process holds the key waits for its release notice, polling with a {@link
 * PollBackoff} for a notice that was missed, until the key is won or the wait runs out. Threadsafe.
 */
final class CrossProcessContention {

    /**
     * How long the next local contender holds back after a release that another process was marked as waiting
     * for (release.lua returned 2), so that process's notified contender can take its turn.
     */
    static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final LockClock clock;
    private final LockScripts scripts;
    private final NoticeBus notices;
    private final Watchdog watchdog;
    private final Consumer<Hold> releaser;
    private final BooleanSupplier closed;
    private final byte[] defaultLeaseMillis;
    private final SecureRandom random = new SecureRandom();

    CrossProcessContention(
            LockClock clock,
            LockScripts scripts,
            NoticeBus notices,
            Watchdog watchdog,
            Consumer<Hold> releaser,
            BooleanSupplier closed,
            byte[] defaultLeaseMillis) {
        this.clock = clock;
        this.scripts = scripts;
        this.notices = notices;
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
        byte[] lease = renew ? defaultLeaseMillis : Long.toString(leaseMillis).getBytes(StandardCharsets.US_ASCII);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        int attempts = 0;
        PollBackoff backoff = new PollBackoff();
        NoticeBus.Subscription watching = null;
        try {
            if (st.signal.takeYield()) {
                long left = forever ? YIELD_NANOS : Math.min(YIELD_NANOS, start + waitNanos - clock.nanoTime());
                if (left > 0) {
                    st.signal.await(st.signal.count(), left);
                }
            }
            while (true) {
                long seen = st.signal.count();
                byte[] token = newToken();
                long sentAt = clock.nanoTime();
                attempts++;
                boolean willWait = forever || start + waitNanos - sentAt > 0;
                long[] reply = scripts.acquire(st, token, lease, renew, willWait);
                if (reply[0] == 1) {
                    long first = reply[1] - (renew ? HandOffChain.BLOCK : 1) + 1;
                    Hold hold = new Hold(clock, releaser, st, token, first, reply[1], sentAt, leaseNanos, renew);
                    if (renew) {
                        watchdog.add(hold);
                    }
                    return Outcome.acquired(hold, attempts, clock.nanoTime() - start);
                }
                long ttl = reply[1];
                long now = clock.nanoTime();
                long left = forever ? Long.MAX_VALUE : start + waitNanos - now;
                if (left <= 0) {
                    return Outcome.conflict(attempts, now - start, ttl);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (watching == null && !closed.getAsBoolean()) {
                    watching = notices.watch(st.channel, st::signal);
                }
                st.signal.await(seen, backoff.next(left, ttl));
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
}
