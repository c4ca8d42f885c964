package io.github.deferlock.delay;

import io.github.deferlock.delay.Settler.PendingAck;
import io.github.deferlock.delay.internal.ClaimPolicy;
import io.github.deferlock.delay.internal.Ticker;
import io.github.deferlock.redis.internal.Require;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's dispatcher thread: each round it gives back buffered jobs that went stale, sends acks that are
 * due on their own, or claims (acks riding along), as the {@link ClaimPolicy} says, and otherwise sleeps until
 * the policy's next moment, a wake notice, room made by the handlers or an ack that must go sooner. A claim
 * that failed may have run with its reply lost, so it is resent as the same call (same token, size and acks)
 * before anything else; failures pause the loop with the policy's doubling pause. Claimed jobs go to the
 * {@link HandlerPool}, or back to due when the pool is closing.
 *
 * <p>Owns the sleep state (whether it sleeps, until when, whether for room) and its round count, guarded by
 * its own lock, which it holds while it reads the pool's and the acks' state (never the other way round). The
 * loop's own timing state is confined to the dispatcher thread. Threadsafe.
 *
 * @param <T> the payload type
 */
final class DispatcherLoop<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    private static final long JOIN_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** A claim call that failed, to be resent as the same call. */
    private record ResentClaim<T>(String token, int max, List<PendingAck<T>> acks) {}

    private final QueueCalls<T> calls;
    private final ClaimPolicy policy;
    private final HandlerPool<T> pool;
    private final AckBatcher<T> acks;
    private final Settler<T> settler;
    private final QueueListener listener;
    private final boolean listening;
    private final Ticker ticker;
    private final Thread thread;
    private final AtomicLong wakes = new AtomicLong();
    private final AtomicLong rounds = new AtomicLong(); // loop rounds, for tests
    private volatile boolean running;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    // guarded by lock:
    private boolean sleeping; // the dispatcher waits, until sleepingUntil
    private long sleepingUntil;
    private boolean awaitingRoom; // it waits for handlers to make room

    // confined to the dispatcher thread (or a test that drives step()):
    private long errorPauseNanos;
    private long pauseUntil; // no Redis call before this (after a failure)
    private long nextClaimAt;
    private long seen; // the wake count the last claim answered
    private ResentClaim<T> resend; // a claim that failed: the next one resends it
    private boolean empty; // the last claim found nothing due, nothing in flight and no wake time

    DispatcherLoop(
            QueueCalls<T> calls,
            ClaimPolicy policy,
            HandlerPool<T> pool,
            AckBatcher<T> acks,
            Settler<T> settler,
            QueueListener listener,
            Ticker ticker,
            String threadName) {
        // checked here: a null would otherwise fail later, on the dispatcher thread, which logs and retries
        this.calls = Require.notNull("calls", calls);
        this.policy = Require.notNull("policy", policy);
        this.pool = Require.notNull("pool", pool);
        this.acks = Require.notNull("acks", acks);
        this.settler = Require.notNull("settler", settler);
        this.listener = Require.notNull("listener", listener);
        this.listening = listener != QueueListener.NONE;
        this.ticker = ticker;
        this.thread = new Thread(this::loop, threadName);
        this.thread.setDaemon(true);
    }

    /** Starts the thread. */
    void start() {
        running = true;
        thread.start();
    }

    /** Ends the loop after its current round (a claim in progress comes back first). */
    void stop() {
        running = false;
        wake();
    }

    /** A wake notice: something may be due earlier than the dispatcher thought. */
    void wake() {
        wakes.incrementAndGet();
        lock.lock();
        try {
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The handlers made room for a claim: wakes a dispatcher that waits for room. */
    void roomMade() {
        lock.lock();
        try {
            if (awaitingRoom) {
                woken.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** An ack was queued ({@link AckBatcher.Waker}): a full batch goes at once, the first one in time. */
    void ackQueued(long sendAt, boolean first, boolean full) {
        lock.lock();
        try {
            if (full || (first && sleeping && sleepingUntil - sendAt > 0)) {
                woken.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The loop rounds so far: tests check that it sleeps when it has nothing to do. */
    long rounds() {
        return rounds.get();
    }

    /** True while the thread runs. */
    boolean isAlive() {
        return thread.isAlive();
    }

    /**
     * Waits for the thread to end: until the deadline, and at least 10 s (a Redis call ends within the client's
     * socket timeout); then interrupts it (a call stuck on an exhausted pool) and waits 1 s more. False when this
     * thread was interrupted.
     */
    boolean join(long deadline) {
        try {
            long wait = Math.max(deadline - ticker.read(), JOIN_NANOS);
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
            if (thread.isAlive()) {
                LOG.warn("queue '{}': the dispatcher's Redis call has not returned, interrupting it", calls.name());
                thread.interrupt();
                thread.join(1000);
            }
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private void loop() {
        begin();
        while (step()) {
            // each round acts or sleeps
        }
        if (resend != null) {
            resendOnExit();
        }
    }

    /** For tests: runs the loop on the calling thread, one {@link #step()} at a time. */
    void startHere() {
        running = true;
        begin();
    }

    /** Resets the loop's timing: claim at once. */
    private void begin() {
        errorPauseNanos = 0;
        pauseUntil = ticker.read();
        nextClaimAt = pauseUntil;
        seen = wakes.get() - 1;
        resend = null;
        empty = false;
    }

    /** One round: acts (give back, ack, claim) or sleeps. False when the loop must end. */
    boolean step() {
        calls.heartbeat();
        int n;
        boolean claim;
        List<PendingAck<T>> sending;
        List<Job<T>> stale;
        lock.lock();
        try {
            if (!running) {
                return false;
            }
            rounds.incrementAndGet();
            long now = ticker.read();
            n = pool.claimSize(now);
            stale = pool.takeStale(now); // no handler took them in time: all are busy, or stuck
            boolean mayCall = now - pauseUntil >= 0;
            claim = mayCall && n > 0 && (now - nextClaimAt >= 0 || wakes.get() != seen);
            if (resend != null) { // the failed claim may have run: its jobs wait for this resend
                claim = mayCall;
                n = resend.max;
            }
            boolean ackNow = mayCall && acks.due(now);
            if (resend == null && ackNow && acks.moreThanAClaimCarries()) {
                claim = false; // more acks than the claim carries: they go first, or fast handlers outrun them
            }
            if (stale.isEmpty() && !claim && !ackNow) {
                boolean hasAck = acks.size() > 0; // else the first ack wakes it when due earlier (ackQueued)
                boolean hasBuffered = pool.hasBuffered();
                long until = policy.sleepUntil(
                        now,
                        pauseUntil,
                        resend != null,
                        n > 0,
                        nextClaimAt,
                        hasAck,
                        hasAck ? acks.sendAt() : 0,
                        hasBuffered,
                        hasBuffered ? pool.oldestStaleAt() : 0);
                awaitingRoom = n == 0;
                sleeping = true;
                sleepingUntil = until;
                try {
                    woken.awaitNanos(until - now);
                } finally {
                    awaitingRoom = false;
                    sleeping = false;
                }
                return true;
            }
            sending = resend != null
                    ? (claim ? resend.acks : List.of())
                    : !stale.isEmpty() || (claim && !acks.piggyback()) ? List.of() : acks.drain(DelayQueue.MAX_ACKS);
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
        if (!stale.isEmpty()) {
            LOG.debug("queue '{}': {} buffered jobs waited too long, giving them back", calls.name(), stale.size());
            for (Job<T> job : stale) {
                settler.giveBack(job, "return of a job that waited too long in the buffer");
            }
            return true;
        }
        if (!claim) {
            if (resend == null) {
                sendAcks(sending);
            } // else only the resent claim may go next
            return true;
        }
        claim(n, sending);
        return true;
    }

    private void sendAcks(List<PendingAck<T>> sending) {
        try {
            String token = settler.tokenFor(sending);
            List<Boolean> results = calls.ackAll(Settler.jobsOf(sending), token);
            calls.done(token);
            settler.report(sending, results);
            errorPauseNanos = 0;
        } catch (RuntimeException e) {
            acks.retryLater(sending, e);
            errorPauseNanos = policy.nextErrorPause(errorPauseNanos);
            LOG.warn(
                    "queue '{}': ack of {} jobs failed, retrying in {} ms: {}",
                    calls.name(),
                    sending.size(),
                    TimeUnit.NANOSECONDS.toMillis(errorPauseNanos),
                    e.toString());
            pauseUntil = ticker.read() + errorPauseNanos;
        }
    }

    private void claim(int n, List<PendingAck<T>> sending) {
        long seenNow = wakes.get();
        long sent = ticker.read();
        if (empty && resend == null && sending.isEmpty() && seenNow == seen) {
            // idle on an empty queue and no notice since: one EXISTS tells whether a claim can find anything
            // (every enqueue into an empty queue publishes a notice; this look is the lost-notice net)
            if (!calls.mayHaveWork()) {
                nextClaimAt = ticker.read() + policy.emptyPollNanos();
                return;
            }
        }
        String token = resend != null ? resend.token : calls.newToken();
        ClaimBatch<T> batch;
        try {
            batch = calls.claim(n, Settler.jobsOf(sending), token);
            calls.done(token);
            errorPauseNanos = 0;
            resend = null;
        } catch (RuntimeException e) {
            // the call may have run with its reply lost: resend it (same token, size and acks) next time, so
            // the jobs it took come to this worker instead of waiting in flight with no handler; its acks
            // stay with it (the resend reports their results)
            resend = new ResentClaim<>(token, n, sending);
            errorPauseNanos = policy.nextErrorPause(errorPauseNanos);
            LOG.warn(
                    "queue '{}': claim failed, retrying in {} ms: {}",
                    calls.name(),
                    TimeUnit.NANOSECONDS.toMillis(errorPauseNanos),
                    e.toString());
            pauseUntil = ticker.read() + errorPauseNanos; // a wake-up must not cut the pause short
            nextClaimAt = pauseUntil;
            return;
        }
        long received = ticker.read();
        seen = seenNow;
        settler.report(sending, batch.acked());
        take(batch, sent, received);
        empty = batch.jobs().isEmpty() && batch.nextWakeMs() < 0 && sending.isEmpty();
        nextClaimAt = empty
                ? received + policy.emptyPollNanos()
                : policy.nextClaimAt(
                        n, batch.jobs().size(), sent, received, batch.nextWakeMs(), batch.serverNowMicros());
    }

    /** Hands claimed jobs to the pool, or gives them back when it is closing. */
    private void take(ClaimBatch<T> batch, long sent, long received) {
        List<Job<T>> jobs = batch.jobs();
        if (listening) {
            for (Job<T> job : jobs) {
                listener.onClaimed(calls.name(), job.id(), job.attempts());
            }
        }
        if (!pool.offer(jobs, sent, received, batch.serverNowMicros())) { // close() came during the claim
            for (Job<T> job : jobs) {
                settler.giveBack(job, "return on close");
            }
        }
    }

    /**
     * Closing with a claim that failed: resends it once so that its acks are applied (or reported) and the jobs
     * it may have taken are given back at once; when that fails too, the acks go the usual way and those jobs
     * come back after their visibility timeout.
     */
    private void resendOnExit() {
        ResentClaim<T> r = resend;
        resend = null;
        try {
            long sent = ticker.read();
            ClaimBatch<T> batch = calls.claim(r.max, Settler.jobsOf(r.acks), r.token);
            calls.done(r.token);
            settler.report(r.acks, batch.acked());
            take(batch, sent, ticker.read());
        } catch (RuntimeException e) {
            acks.retryLater(r.acks, e);
        }
    }
}
