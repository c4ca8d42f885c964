package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.RunningJobRenewer;
import io.github.deferlock.delay.internal.WakeSubscriber;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JobHandler} on the jobs of a {@link DelayQueue}: one dispatcher thread claims due jobs in
 * batches into a small local buffer, {@code concurrency} handler threads take them from it, and finished jobs
 * are acked in batches. Returning from the handler acks the job; an exception (or error) nacks it with the
 * queue's backoff. A handler that settles the job itself is left alone.
 *
 * <pre>{@code
 * try (DelayQueueWorker<Email> worker = DelayQueueWorker.builder(queue, job -> send(job.payload()))
 *         .concurrency(8)
 *         .build()
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Claiming ahead.</b> One claim takes up to {@link Builder#batchSize(int) batchSize} jobs, so one round
 * trip feeds many handler runs. Jobs beyond the free handler threads wait in the worker's buffer, in flight in
 * Redis with their visibility timeout running, so the worker claims ahead only as many jobs as its handlers
 * are expected to start within a tenth of the queue's visibility timeout (at most 1 s), judged by how long its
 * recent handler runs took: fast handlers get a buffer of up to {@code batchSize} jobs; handlers slower than
 * that get none, and a claim then takes no more jobs than there are free handler threads (as it does until
 * the first handler run finished). A handler run that goes on longer than that window and twice the average
 * run counts as stuck and earns no claim-ahead, so threads hung in a slow dependency do not keep jobs waiting
 * in the buffer. A job that still waited half its visibility timeout in the buffer is given back to due
 * without spending an attempt instead of being started late (by the dispatcher when no handler takes it). A
 * worker holds at most {@code concurrency + batchSize} jobs, and claims again once its buffer is half empty.
 *
 * <p><b>Acking in batches.</b> A finished job's ack rides along with the worker's next claim (one script call
 * for both); when no claim comes within 5 ms, the pending acks are sent on their own, many in one call. So
 * under load acks cost no round trip of their own. With {@link DelayQueue.Builder#waitForReplicas} acks are
 * always sent on their own, with one {@code WAIT} per batch. An ack call that fails is retried (3 tries in
 * all, as for the other settlements); each job whose receipt turned out stale is logged on its own. A crash
 * loses the acks still pending (at most about 5 ms of finished jobs): those jobs are redelivered after their
 * visibility timeout, as at-least-once delivery allows.
 *
 * <p><b>Keeping running jobs claimed.</b> While a handler runs, the worker renews its job's visibility, like a
 * lock watchdog: every third of the visibility timeout one script call moves the deadlines of all the jobs its
 * handlers are running to now + the visibility timeout, so a handler slower than the timeout still runs once
 * and is not redelivered meanwhile. {@link Builder#maxHandlerTime(Duration)} bounds how long one run is
 * renewed; after it the job is redelivered after its timeout as if the worker were gone. When a renewal is
 * refused (the job was cancelled, or redelivered after a renewal came too late, e.g. the worker paused), the
 * claim is lost: {@link Job#isClaimLost()} turns true, the handler thread is interrupted if {@link
 * Builder#interruptOnClaimLost(boolean)} asked for it, and when the handler ends its ack (or nack) is refused
 * with one WARN line, without a Redis call. A worker that dies stops renewing, so its jobs are redelivered
 * after the visibility timeout.
 *
 * <p>When nothing is due the dispatcher sleeps until the earliest due time (or visibility deadline) that
 * the claim reported, and is woken early by the notice the enqueue script publishes when a job becomes the
 * earliest one. A lost notice or a dropped subscription cannot stall it: it also polls every {@code
 * fallbackPoll} (default 1 s), so an idle worker costs Redis about one command per second. Redis failures
 * are logged and retried with backoff; handler failures never stop the loop.
 *
 * <p>{@link #close(Duration)} stops claiming, gives the buffered jobs back to due at once without spending an
 * attempt, lets running handlers finish within the timeout, then interrupts the rest (their jobs are given
 * back the same way), and sends every pending ack before it returns.
 *
 * <p>Threadsafe.
 *
 * @param <T> the payload type
 */
public final class DelayQueueWorker<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final long MIN_IDLE_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final Duration DEFAULT_ACK_DELAY = Duration.ofMillis(5);
    private static final long MAX_START_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int SETTLE_TRIES = 3;
    private static final long DISPATCHER_JOIN_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int DEFAULT_MIN_BATCH = 32;
    private static final int DEFAULT_MAX_BATCH = 100;
    private static final AtomicInteger SERIAL = new AtomicInteger();
    /** The most handler threads one worker runs. */
    public static final int MAX_CONCURRENCY = 10_000;

    private final DelayQueue<T> queue;
    private final JobHandler<T> handler;
    private final int concurrency;
    private final int batchSize;
    private final long fallbackPollNanos;
    private final long ackDelayNanos;
    /** Claim ahead only as many jobs as the handlers are expected to start within this. */
    private final long startWindowNanos;
    /** A buffered job that waited this long is given back instead of started. */
    private final long staleNanos;

    private final boolean piggybackAcks;
    private final ExecutorService executor;
    private final Thread dispatcher;
    private final WakeSubscriber subscriber;
    private final boolean allowEvictionPolicy;
    private final RunningJobRenewer<Job<T>> renewer;
    private final String threadBase;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong wakes = new AtomicLong();
    private volatile boolean running;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition dispatcherWake = lock.newCondition();
    private final Condition jobsReady = lock.newCondition();
    // guarded by lock:
    private final ArrayDeque<Buffered<T>> buffer = new ArrayDeque<>();
    private final ArrayDeque<PendingAck<T>> acks = new ArrayDeque<>();
    private int inHand; // claimed and not yet finished: buffered + running
    private int loops; // handler loops started and not ended
    private int idleLoops; // handler loops waiting for a job
    private boolean accepting = true; // false once close() took the buffered jobs
    private boolean acksOpen = true; // false once close() took the last pending acks: late ones go at once
    private boolean awaitingRoom; // the dispatcher waits for handlers to make room
    private long avgHandlerNanos = -1; // -1 until a handler run finished
    private long rounds; // dispatcher loop rounds, for tests
    private boolean sleeping; // the dispatcher waits, until sleepingUntil
    private long sleepingUntil;
    private final Run runs = new Run(); // sentinel of the handler runs in progress, oldest first

    private DelayQueueWorker(Builder<T> b) {
        this.queue = b.queue;
        this.handler = b.handler;
        this.concurrency = b.concurrency;
        this.batchSize =
                b.batchSize > 0 ? b.batchSize : Math.min(DEFAULT_MAX_BATCH, Math.max(DEFAULT_MIN_BATCH, concurrency));
        this.fallbackPollNanos = b.fallbackPoll.toNanos();
        this.ackDelayNanos = b.ackDelay.toNanos();
        long visibility = queue.visibilityTimeout().toNanos();
        this.startWindowNanos = Math.min(visibility / 10, MAX_START_WINDOW_NANOS);
        this.staleNanos = visibility / 2;
        this.piggybackAcks = !queue.waitsForReplicas();
        this.allowEvictionPolicy = b.allowEvictionPolicy;
        String base = "deferlock-" + queue.name() + "-" + SERIAL.incrementAndGet();
        this.executor = b.virtualThreads ? virtualThreadExecutor() : platformExecutor(base, concurrency);
        this.dispatcher = new Thread(this::dispatch, base + "-dispatcher");
        this.dispatcher.setDaemon(true);
        this.subscriber = new WakeSubscriber(queue.redis(), queue.wakeChannel(), this::wake, base + "-wake");
        this.threadBase = base;
        this.renewer = new RunningJobRenewer<>(
                queue.name(),
                queue.visibilityTimeout().dividedBy(3),
                b.maxHandlerTime,
                queue::extendAll,
                DelayQueueWorker::claimLost,
                b.interruptOnClaimLost,
                System::nanoTime);
    }

    /**
     * Starts a builder.
     *
     * @throws NullPointerException when an argument is null
     */
    public static <T> Builder<T> builder(DelayQueue<T> queue, JobHandler<T> handler) {
        return new Builder<>(queue, handler);
    }

    /**
     * Checks the server's eviction policy, then starts the dispatcher and the wake subscription; handler
     * threads start as jobs arrive.
     *
     * <p>The check runs once per start: it reads {@code maxmemory_policy} from {@code INFO memory}, or from
     * {@code CONFIG GET maxmemory-policy} when INFO is not permitted. An {@code allkeys-*} policy lets Redis
     * evict queue keys and silently drop jobs, so the worker refuses to start unless the builder set {@link
     * Builder#allowEvictionPolicy(boolean)}, in which case it logs a WARN. When neither command is allowed (an
     * ACL user with {@code -@dangerous}) it logs one WARN saying it could not check, and starts. On Cluster
     * the client sends the check to one node only.
     *
     * @return this worker
     * @throws IllegalStateException when already started or closed, or when the server's {@code
     *     maxmemory-policy} is {@code allkeys-*} and eviction was not allowed
     */
    public DelayQueueWorker<T> start() {
        if (closed.get() || started.get()) {
            throw new IllegalStateException("worker for queue '" + queue.name() + "' was already started");
        }
        checkEvictionPolicy();
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("worker for queue '" + queue.name() + "' was already started");
        }
        running = true;
        renewer.start(threadBase + "-renewer");
        subscriber.start();
        dispatcher.start();
        return this;
    }

    private void checkEvictionPolicy() {
        java.util.Optional<String> policy = queue.evictionPolicy();
        if (policy.isEmpty()) {
            LOG.warn(
                    "queue '{}': could not check the server's maxmemory-policy (INFO and CONFIG GET are not"
                            + " permitted or failed); if it is allkeys-*, Redis may evict queue keys and lose jobs",
                    queue.name());
            return;
        }
        String p = policy.get();
        if (!p.startsWith("allkeys-")) {
            return;
        }
        String problem = "queue '" + queue.name() + "': the server's maxmemory-policy is " + p
                + ", so Redis may evict queue keys and silently drop jobs; set maxmemory-policy to noeviction (or a"
                + " volatile-* policy: queue keys have no TTL)";
        if (!allowEvictionPolicy) {
            throw new IllegalStateException(problem + ", or build the worker with allowEvictionPolicy(true)");
        }
        LOG.warn("{} (starting anyway: allowEvictionPolicy(true))", problem);
    }

    /** The dispatcher's loop rounds so far: tests check that it sleeps when it has nothing to do. */
    long dispatcherRounds() {
        lock.lock();
        try {
            return rounds;
        } finally {
            lock.unlock();
        }
    }

    /** True between {@link #start()} and {@link #close()}. */
    public boolean isRunning() {
        return running;
    }

    /** Closes with a 30 s timeout; see {@link #close(Duration)}. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Stops claiming, gives the jobs that wait in the worker's buffer back to due at once (without spending an
     * attempt), waits up to {@code timeout} for running handlers to finish (and be acked or nacked), then
     * interrupts those still running: a job whose handler ends by that interruption is given back the same
     * way. Before it returns it sends every pending ack (retrying a failed call like any settlement), and waits
     * for a claim that is in progress to come back, however short the timeout: that call may carry acks, and
     * the jobs it claimed are given back like the buffered ones. It ends within the client's socket timeout.
     * Idempotent.
     *
     * @return true when every handler finished within the timeout
     * @throws NullPointerException when {@code timeout} is null
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public boolean close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout cannot be null");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout cannot be negative, got " + timeout);
        }
        if (!closed.compareAndSet(false, true)) {
            return executor.isTerminated();
        }
        // saturate: a timeout of centuries means "wait as long as it takes", not an overflow
        long timeoutNanos = timeout.compareTo(Duration.ofDays(10_000)) > 0 ? Long.MAX_VALUE / 4 : timeout.toNanos();
        long deadline = System.nanoTime() + timeoutNanos;
        running = false;
        wake();
        boolean interrupted = false;
        boolean finished = false;
        // wake() took the dispatcher out of its wait; no interrupt: a claim it is sending must come back and give
        // its jobs back through Redis (see offer), which an interrupted thread could not do
        try {
            giveBackBuffered();
            executor.shutdown();
            if (!interrupted) {
                finished = awaitHandlers(deadline);
                if (!finished) {
                    LOG.warn("queue '{}': handlers still running after {}, interrupting them", queue.name(), timeout);
                }
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (!finished) {
                executor.shutdownNow();
            }
            if (!interrupted && dispatcher.isAlive()) {
                // it is in a Redis call, which ends within the client's timeouts: a claim may carry acks, and
                // the jobs it returns must be given back, so close() does not return before it did
                interrupted = !joinDispatcher(deadline);
            }
            List<PendingAck<T>> last;
            lock.lock();
            try {
                acksOpen = false; // a handler that finishes from now on acks its job itself
                last = drainAcks(Integer.MAX_VALUE);
            } finally {
                lock.unlock();
            }
            sendAcksNow(last);
            renewer.close(); // no handler runs any more (or close gave up on them: they are redelivered)
            subscriber.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return finished;
    }

    /**
     * Waits for the dispatcher to end: until the deadline, and at least 10 s (a Redis call ends within the
     * client's socket timeout); then interrupts it (a call stuck on an exhausted pool) and waits 1 s more.
     * False when this thread was interrupted.
     */
    private boolean joinDispatcher(long deadline) {
        try {
            long wait = Math.max(deadline - System.nanoTime(), DISPATCHER_JOIN_NANOS);
            dispatcher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
            if (dispatcher.isAlive()) {
                LOG.warn("queue '{}': the dispatcher's Redis call has not returned, interrupting it", queue.name());
                dispatcher.interrupt();
                dispatcher.join(1000);
            }
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Waits for the handler threads to end, sending the acks of the jobs they finish meanwhile. */
    private boolean awaitHandlers(long deadline) throws InterruptedException {
        for (; ; ) {
            long left = deadline - System.nanoTime();
            if (executor.awaitTermination(Math.max(0, Math.min(left, ackDelayNanos)), TimeUnit.NANOSECONDS)) {
                return true;
            }
            if (left <= 0) {
                return noRunInProgress(); // loops that waited for a job are ending: they ran nothing
            }
            List<PendingAck<T>> pending;
            lock.lock();
            try {
                pending = drainAcks(Integer.MAX_VALUE);
            } finally {
                lock.unlock();
            }
            sendAcksNow(pending);
        }
    }

    private boolean noRunInProgress() {
        lock.lock();
        try {
            return runs.next == runs;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the buffer and gives the jobs no handler started back to due, attempts unchanged. */
    private void giveBackBuffered() {
        List<Job<T>> unstarted = new ArrayList<>();
        lock.lock();
        try {
            accepting = false;
            for (Buffered<T> b; (b = buffer.poll()) != null; ) {
                unstarted.add(b.job());
            }
            inHand -= unstarted.size();
            jobsReady.signalAll(); // idle handler loops end
        } finally {
            lock.unlock();
        }
        for (Job<T> job : unstarted) {
            giveBack(job, "return on close");
        }
    }

    private void giveBack(Job<T> job, String what) {
        settle(job, () -> queue.reschedule(job, Duration.ZERO, null), what);
    }

    private void wake() {
        wakes.incrementAndGet();
        lock.lock();
        try {
            dispatcherWake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- dispatcher

    private void dispatch() {
        long errorPauseNanos = 0;
        long pauseUntil = System.nanoTime(); // no Redis call before this (after a failure)
        long nextClaimAt = pauseUntil;
        long seen = wakes.get() - 1; // claim at once
        ResentClaim<T> resend = null; // a claim that failed: the next one resends it (same token, size, acks)
        while (running) {
            queue.beacon.touch(queue.redis(), queue.name()); // the registry entry, at most every 30 s
            int n;
            boolean claim;
            List<PendingAck<T>> sending;
            List<Job<T>> stale;
            lock.lock();
            try {
                if (!running) {
                    break;
                }
                rounds++;
                long now = System.nanoTime();
                n = claimSize(now);
                stale = takeStale(now); // no handler took them in time: all are busy, or stuck
                boolean mayCall = now - pauseUntil >= 0;
                claim = mayCall && n > 0 && (now - nextClaimAt >= 0 || wakes.get() != seen);
                if (resend != null) { // the failed claim may have run: its jobs wait for this resend
                    claim = mayCall;
                    n = resend.max;
                }
                boolean ackNow = mayCall
                        && !acks.isEmpty()
                        && (acks.size() >= DelayQueue.MAX_ACKS || now - acks.peekFirst().since - ackDelayNanos >= 0);
                if (resend == null && ackNow && acks.size() > (piggybackAcks ? DelayQueue.MAX_ACKS : 0)) {
                    claim = false; // more acks than the claim carries: they go first, or fast handlers outrun them
                }
                if (stale.isEmpty() && !claim && !ackNow) {
                    long until = now + fallbackPollNanos;
                    if (resend != null) {
                        until = earlier(until, pauseUntil);
                    }
                    if (n > 0) {
                        until = earlier(until, later(nextClaimAt, pauseUntil));
                    }
                    if (!acks.isEmpty()) {
                        until = earlier(until, later(acks.peekFirst().since + ackDelayNanos, pauseUntil));
                    } // else the first ack wakes it when it is due earlier (see ack())
                    if (!buffer.isEmpty()) {
                        until = earlier(until, buffer.peekFirst().claimedNanos() + staleNanos + 1);
                    }
                    awaitingRoom = n == 0;
                    sleeping = true;
                    sleepingUntil = until;
                    try {
                        dispatcherWake.awaitNanos(until - now);
                    } finally {
                        awaitingRoom = false;
                        sleeping = false;
                    }
                    continue;
                }
                sending = resend != null
                        ? (claim ? resend.acks : List.of())
                        : !stale.isEmpty() || (claim && !piggybackAcks) ? List.of() : drainAcks(DelayQueue.MAX_ACKS);
            } catch (InterruptedException e) {
                break;
            } finally {
                lock.unlock();
            }
            if (!stale.isEmpty()) {
                LOG.debug("queue '{}': {} buffered jobs waited too long, giving them back", queue.name(), stale.size());
                for (Job<T> job : stale) {
                    giveBack(job, "return of a job that waited too long in the buffer");
                }
                continue;
            }
            if (!claim && resend != null) {
                continue; // only the resent claim may go next (this round gave back stale buffered jobs)
            }
            if (!claim) {
                try {
                    report(sending, queue.ackAll(jobsOf(sending), false));
                    errorPauseNanos = 0;
                } catch (RuntimeException e) {
                    retryLater(sending, e);
                    errorPauseNanos = nextPause(errorPauseNanos);
                    LOG.warn(
                            "queue '{}': ack of {} jobs failed, retrying in {} ms: {}",
                            queue.name(),
                            sending.size(),
                            TimeUnit.NANOSECONDS.toMillis(errorPauseNanos),
                            e.toString());
                    pauseUntil = System.nanoTime() + errorPauseNanos;
                }
                continue;
            }
            long seenNow = wakes.get();
            long sent = System.nanoTime();
            String token = resend != null ? resend.token : DelayQueue.newToken();
            ClaimBatch<T> batch;
            try {
                batch = queue.claimBatch(n, jobsOf(sending), token);
                errorPauseNanos = 0;
                resend = null;
            } catch (RuntimeException e) {
                // the call may have run with its reply lost: resend it (same token, size and acks) next time, so
                // the jobs it took come to this worker instead of waiting in flight with no handler; its acks
                // stay with it (the resend reports their results)
                resend = new ResentClaim<>(token, n, sending);
                errorPauseNanos = nextPause(errorPauseNanos);
                LOG.warn(
                        "queue '{}': claim failed, retrying in {} ms: {}",
                        queue.name(),
                        TimeUnit.NANOSECONDS.toMillis(errorPauseNanos),
                        e.toString());
                pauseUntil = System.nanoTime() + errorPauseNanos; // a wake-up must not cut the pause short
                nextClaimAt = pauseUntil;
                continue;
            }
            long received = System.nanoTime();
            seen = seenNow;
            report(sending, batch.acked());
            int claimed = batch.jobs().size();
            offer(batch.jobs());
            if (claimed == n) {
                nextClaimAt = received; // maybe more are due
                continue;
            }
            long next = received + fallbackPollNanos;
            if (batch.nextWakeMs() >= 0) {
                // the server read its clock about halfway through the round trip
                long untilNext = (batch.nextWakeMs() * 1000 - batch.serverNowMicros()) * 1000;
                next = earlier(next, sent + (received - sent) / 2 + untilNext);
            }
            nextClaimAt = claimed == 0 ? later(next, received + MIN_IDLE_WAIT_NANOS) : next;
        }
        if (resend != null) {
            resendOnExit(resend);
        }
    }

    /**
     * Closing with a claim that failed: resends it once so that its acks are applied (or reported) and the jobs
     * it may have taken are given back at once (see {@link #offer}); when that fails too, the acks go the usual
     * way and those jobs come back after their visibility timeout.
     */
    private void resendOnExit(ResentClaim<T> resend) {
        try {
            ClaimBatch<T> batch = queue.claimBatch(resend.max, jobsOf(resend.acks), resend.token);
            report(resend.acks, batch.acked());
            offer(batch.jobs());
        } catch (RuntimeException e) {
            retryLater(resend.acks, e);
        }
    }

    private long nextPause(long errorPauseNanos) {
        return errorPauseNanos == 0
                ? TimeUnit.MILLISECONDS.toNanos(50)
                : Math.min(errorPauseNanos * 2, Math.max(fallbackPollNanos, TimeUnit.SECONDS.toNanos(1)));
    }

    /**
     * How many jobs the next claim may take, 0 when it should wait (see the class javadoc): the free handler
     * threads plus the claim-ahead allowance, and only once the buffer is at most half full. Handler runs that
     * went on far longer than usual do not count towards the allowance: threads stuck in a hung call must not
     * keep jobs in the buffer. Holding the lock.
     */
    private int claimSize(long now) {
        int ahead = 0;
        if (avgHandlerNanos >= 0) {
            int moving = concurrency - stalledRuns(now);
            ahead = (int) Math.min(batchSize, moving * startWindowNanos / Math.max(1, avgHandlerNanos));
        }
        if (buffer.size() > ahead / 2) {
            return 0;
        }
        return Math.max(0, Math.min(batchSize, concurrency + ahead - inHand));
    }

    /** Puts claimed jobs in the buffer and starts handler loops for them, up to the concurrency. */
    private void offer(List<Job<T>> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        int spawn;
        lock.lock();
        try {
            if (accepting) {
                long now = System.nanoTime();
                for (Job<T> job : jobs) {
                    buffer.add(new Buffered<>(job, now));
                }
                inHand += jobs.size();
                for (int i = Math.min(idleLoops, jobs.size()); i > 0; i--) {
                    jobsReady.signal();
                }
                spawn = Math.min(concurrency - loops, Math.max(0, buffer.size() - idleLoops));
                loops += spawn;
            } else {
                spawn = -1;
            }
        } finally {
            lock.unlock();
        }
        if (spawn < 0) { // close() came during the claim
            for (Job<T> job : jobs) {
                giveBack(job, "return on close");
            }
            return;
        }
        for (int i = 0; i < spawn; i++) {
            try {
                executor.execute(this::handlerLoop);
            } catch (RejectedExecutionException e) { // closing: close() gives the buffered jobs back
                lock.lock();
                try {
                    loops--;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Holding the lock: takes the buffered jobs that waited too long (see {@link #isStale}), oldest first. */
    private List<Job<T>> takeStale(long now) {
        if (buffer.isEmpty() || !isStale(buffer.peekFirst(), now)) {
            return List.of();
        }
        List<Job<T>> out = new ArrayList<>();
        while (!buffer.isEmpty() && isStale(buffer.peekFirst(), now)) {
            out.add(buffer.poll().job());
        }
        inHand -= out.size();
        return out;
    }

    /** A buffered job that waited half its visibility timeout is given back rather than started late. */
    private boolean isStale(Buffered<T> b, long now) {
        return now - b.claimedNanos() > staleNanos;
    }

    /**
     * Holding the lock: the handler runs in progress for longer than the start window and twice the average
     * run. Counts from the oldest run and stops at the first that is not stalled.
     */
    private int stalledRuns(long now) {
        long limit = Math.max(startWindowNanos, 2 * Math.max(0, avgHandlerNanos));
        int n = 0;
        for (Run r = runs.next; r != runs && now - r.since > limit; r = r.next) {
            n++;
        }
        return n;
    }

    /** Holding the lock: wakes the dispatcher when it waits for room and a claim may go now. */
    private void signalRoom() {
        if (awaitingRoom && claimSize(System.nanoTime()) > 0) {
            dispatcherWake.signal();
        }
    }

    // ---------------------------------------------------------------- handlers

    private void handlerLoop() {
        Run run = new Run();
        for (; ; ) {
            Buffered<T> next;
            lock.lock();
            try {
                while (buffer.isEmpty() && accepting) {
                    idleLoops++;
                    try {
                        jobsReady.await();
                    } catch (InterruptedException e) {
                        // only close() ends a loop: it stops accepting first
                    } finally {
                        idleLoops--;
                    }
                }
                next = buffer.poll();
                if (next == null) {
                    loops--;
                    return;
                }
                run.since = System.nanoTime();
                run.linkBefore(runs);
                signalRoom();
            } finally {
                lock.unlock();
            }
            long start = run.since; // only this loop writes its node
            boolean ran = false;
            try {
                if (isStale(next, start)) {
                    LOG.debug(
                            "queue '{}': job {} waited too long in the buffer, giving it back",
                            queue.name(),
                            next.job().id());
                    giveBack(next.job(), "return of a job that waited too long in the buffer");
                } else {
                    run(next.job());
                    ran = true;
                }
            } catch (RuntimeException | Error e) { // run() catches the handler's; this is our own bug
                LOG.error(
                        "queue '{}': job {} could not be run",
                        queue.name(),
                        next.job().id(),
                        e);
            } finally {
                long took = System.nanoTime() - start;
                lock.lock();
                try {
                    inHand--;
                    run.unlink();
                    if (ran) {
                        long avg = avgHandlerNanos;
                        // rise fast (a slow handler must stop the claiming ahead at once), fall slowly
                        avgHandlerNanos = avg < 0 ? took : took > avg ? (avg + took) / 2 : avg + (took - avg) / 8;
                    }
                    signalRoom();
                } finally {
                    lock.unlock();
                }
            }
            if (!closed.get()) {
                Thread.interrupted(); // a handler's leftover interrupt must not reach the next job
            }
        }
    }

    private void run(Job<T> job) {
        Throwable failure = null;
        RunningJobRenewer.Registration<Job<T>> renewal = renewer.register(job, Thread.currentThread());
        try {
            handler.handle(job);
        } catch (Throwable t) {
            failure = t;
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            renewer.unregister(renewal);
        }
        if (job.isSettled()) {
            return;
        }
        if (job.isClaimLost()) { // Redis refused its receipt already: the settlement would be refused too
            LOG.warn(
                    "queue '{}': {} of job {} refused: its claim was lost while the handler ran (the job was"
                            + " cancelled, or redelivered after its visibility timeout)",
                    queue.name(),
                    failure == null ? "ack" : "nack",
                    job.id());
            job.markSettled();
            return;
        }
        if (failure != null && closed.get() && interruptedBy(failure)) {
            // close() interrupted a handler that did not finish: this is not a failure of the job, so it
            // goes back to due at once without counting an attempt
            giveBack(job, "return on close");
            return;
        }
        if (failure == null) {
            ack(job);
        } else {
            LOG.debug("queue '{}': job {} attempt {} failed", queue.name(), job.id(), job.attempts(), failure);
            String error =
                    failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
            settle(job, () -> queue.nack(job, error, null), "nack");
        }
    }

    /** A renewal was refused: the claim is lost, unless the handler settled the job itself (then it is no loss). */
    private static boolean claimLost(Job<?> job) {
        if (job.isSettled()) {
            return false;
        }
        job.markClaimLost();
        return true;
    }

    /** Queues the ack for the dispatcher's next call; once close() sent the last batch, acks at once. */
    private void ack(Job<T> job) {
        lock.lock();
        try {
            if (acksOpen) {
                long now = System.nanoTime();
                acks.add(new PendingAck<>(job, now));
                // a full batch goes at once; the first ack wakes a dispatcher that would sleep past its time
                if (acks.size() >= DelayQueue.MAX_ACKS
                        || (acks.size() == 1 && sleeping && sleepingUntil - (now + ackDelayNanos) > 0)) {
                    dispatcherWake.signal();
                }
                return;
            }
        } finally {
            lock.unlock();
        }
        settle(job, () -> queue.ack(job), "ack");
    }

    private static boolean interruptedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof java.io.InterruptedIOException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }

    // ---------------------------------------------------------------- settling

    /** Holding the lock: takes up to {@code max} pending acks, oldest first. */
    private List<PendingAck<T>> drainAcks(int max) {
        List<PendingAck<T>> out = new ArrayList<>(Math.min(max, acks.size()));
        for (PendingAck<T> a; out.size() < max && (a = acks.poll()) != null; ) {
            out.add(a);
        }
        return out;
    }

    private static <T> List<Job<T>> jobsOf(List<PendingAck<T>> pending) {
        List<Job<T>> jobs = new ArrayList<>(pending.size());
        for (PendingAck<T> a : pending) {
            jobs.add(a.job);
        }
        return jobs;
    }

    /** Reports each ack's result on its own, as {@link #settle} does for one. */
    private void report(List<PendingAck<T>> sent, List<Boolean> results) {
        for (int i = 0; i < sent.size(); i++) {
            Job<T> job = sent.get(i).job;
            job.markSettled();
            if (i < results.size() && !results.get(i)) {
                refused(job, "ack");
            }
        }
    }

    /** After a failed call: acks with tries left go back to the front of the queue, the others are given up. */
    private void retryLater(List<PendingAck<T>> failed, RuntimeException e) {
        List<PendingAck<T>> again = new ArrayList<>(failed.size());
        for (PendingAck<T> a : failed) {
            if (++a.failures >= SETTLE_TRIES) {
                gaveUp(a.job, "ack", e);
            } else {
                again.add(a);
            }
        }
        boolean late;
        lock.lock();
        try {
            late = !acksOpen;
            if (!late) {
                for (int i = again.size() - 1; i >= 0; i--) {
                    acks.addFirst(again.get(i));
                }
            }
        } finally {
            lock.unlock();
        }
        if (late) { // close() has sent its last batch: nobody else will
            sendAcksNow(again);
        }
    }

    /** Sends acks in this thread, in calls of {@link DelayQueue#MAX_ACKS}, with the retries of {@link #settle}. */
    private void sendAcksNow(List<PendingAck<T>> pending) {
        for (int from = 0; from < pending.size(); from += DelayQueue.MAX_ACKS) {
            List<PendingAck<T>> chunk = pending.subList(from, Math.min(pending.size(), from + DelayQueue.MAX_ACKS));
            for (; ; ) {
                try {
                    report(chunk, queue.ackAll(jobsOf(chunk), false));
                    break;
                } catch (RuntimeException e) {
                    int tries = 0;
                    for (PendingAck<T> a : chunk) {
                        tries = Math.max(tries, ++a.failures);
                    }
                    if (tries >= SETTLE_TRIES || !pause(100L * tries)) {
                        chunk.forEach(a -> gaveUp(a.job, "ack", e));
                        break;
                    }
                }
            }
        }
    }

    private void settle(Job<T> job, java.util.function.BooleanSupplier action, String what) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (!action.getAsBoolean()) {
                    refused(job, what);
                }
                return;
            } catch (RuntimeException e) {
                if (attempt >= SETTLE_TRIES || !pause(100L * attempt)) {
                    gaveUp(job, what, e);
                    return;
                }
            }
        }
    }

    private static boolean pause(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void refused(Job<T> job, String what) {
        LOG.warn(
                "queue '{}': {} of job {} refused: its visibility timeout expired and it will be or was redelivered",
                queue.name(),
                what,
                job.id());
    }

    private void gaveUp(Job<T> job, String what, RuntimeException e) {
        LOG.warn(
                "queue '{}': {} of job {} failed, it will be redelivered: {}",
                queue.name(),
                what,
                job.id(),
                e.toString());
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    private static long later(long a, long b) {
        return a - b >= 0 ? a : b;
    }

    /** A claim call that failed, to be resent as the same call. */
    private record ResentClaim<T>(String token, int max, List<PendingAck<T>> acks) {}

    /** A claimed job waiting for a handler thread, with the {@link System#nanoTime()} of its claim. */
    private record Buffered<T>(Job<T> job, long claimedNanos) {}

    /**
     * A handler run in progress, in a circular list of them oldest first ({@link #runs} is its head). Guarded
     * by the worker's lock; each handler loop reuses its own node.
     */
    private static final class Run {
        long since;
        Run prev = this;
        Run next = this;

        void linkBefore(Run head) {
            prev = head.prev;
            next = head;
            head.prev.next = this;
            head.prev = this;
        }

        void unlink() {
            prev.next = next;
            next.prev = prev;
            prev = this;
            next = this;
        }
    }

    /** A finished job whose ack was not sent yet. */
    private static final class PendingAck<T> {
        final Job<T> job;
        final long since;
        int failures;

        PendingAck(Job<T> job, long since) {
            this.job = job;
            this.since = since;
        }
    }

    private static ExecutorService platformExecutor(String base, int threads) {
        AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, base + "-handler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    private static ExecutorService virtualThreadExecutor() {
        try {
            return (ExecutorService) MethodHandles.publicLookup()
                    .findStatic(
                            Executors.class,
                            "newVirtualThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class))
                    .invoke();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new UnsupportedOperationException("virtual threads need Java 21 or newer", e);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a virtual-thread executor", t);
        }
    }

    @Override
    public String toString() {
        return "DelayQueueWorker[" + queue.name() + ", concurrency=" + concurrency + "]";
    }

    /**
     * Builds a {@link DelayQueueWorker}. Each setting may be set once; a second call is an {@link
     * IllegalStateException} naming the earlier value. Not threadsafe.
     *
     * @param <T> the payload type
     */
    public static final class Builder<T> {
        private final DelayQueue<T> queue;
        private final JobHandler<T> handler;
        private int concurrency;
        private Boolean virtualThreads;
        private int batchSize;
        private Duration fallbackPoll;
        private Duration ackDelay;
        private Boolean allowEvictionPolicyValue;
        private boolean allowEvictionPolicy;
        private Duration maxHandlerTime;
        private Boolean interruptOnClaimLostValue;
        private boolean interruptOnClaimLost;

        private Builder(DelayQueue<T> queue, JobHandler<T> handler) {
            this.queue = Objects.requireNonNull(queue, "queue cannot be null");
            this.handler = Objects.requireNonNull(handler, "handler cannot be null");
        }

        /**
         * How many handlers run at once. Default 1. Handler threads start as jobs arrive; a worker holds at most
         * {@code concurrency + batchSize} claimed jobs (see {@link #batchSize(int)}).
         *
         * @throws IllegalArgumentException when {@code n} is not within [1, {@link #MAX_CONCURRENCY}]
         * @throws IllegalStateException when already set
         */
        public Builder<T> concurrency(int n) {
            once(concurrency == 0 ? null : concurrency, "concurrency");
            if (n < 1 || n > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("concurrency must be within [1, " + MAX_CONCURRENCY + "], got " + n);
            }
            this.concurrency = n;
            return this;
        }

        /**
         * Run handlers on virtual threads (Java 21+). Default false: platform daemon threads.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<T> virtualThreads(boolean on) {
            once(virtualThreads, "virtualThreads");
            this.virtualThreads = on;
            return this;
        }

        /**
         * The most jobs one claim takes. Default: the concurrency, at least 32 and at most 100.
         *
         * <p>A claim may take more jobs than there are free handler threads: the rest wait in the worker's
         * buffer while their visibility timeout runs. The rule that keeps them safe: the worker claims ahead
         * (beyond its free threads) at most {@code batchSize} jobs, and only as many as its handlers are expected
         * to start within a tenth of the queue's visibility timeout (at most 1 s), from the average duration of
         * recent handler runs; so handlers slower than that window, or not measured yet, get no jobs ahead. It
         * claims again once the buffer is at most half full. A buffered job that waited half the visibility
         * timeout anyway (handlers turned slow) is given back to due without spending an attempt instead of
         * being started late. {@link DelayQueueWorker#close(Duration)} gives buffered jobs back the same way.
         *
         * @throws IllegalArgumentException when {@code n} is not within [1, 1000]
         * @throws IllegalStateException when already set
         */
        public Builder<T> batchSize(int n) {
            once(batchSize == 0 ? null : batchSize, "batchSize");
            if (n < 1 || n > DelayQueue.MAX_CLAIM) {
                throw new IllegalArgumentException(
                        "batchSize must be within [1, " + DelayQueue.MAX_CLAIM + "], got " + n);
            }
            this.batchSize = n;
            return this;
        }

        /**
         * The longest an idle worker waits before it polls again, in case a wake notice was lost. Default 1 s.
         *
         * @throws NullPointerException when {@code interval} is null
         * @throws IllegalArgumentException when not within [1 ms, 1 h]
         * @throws IllegalStateException when already set
         */
        public Builder<T> fallbackPoll(Duration interval) {
            once(fallbackPoll, "fallbackPoll");
            Objects.requireNonNull(interval, "fallbackPoll cannot be null");
            if (interval.compareTo(Duration.ofMillis(1)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("fallbackPoll must be within [1 ms, 1 h], got " + interval);
            }
            this.fallbackPoll = interval;
            return this;
        }

        /**
         * The longest a finished job's ack waits for a claim to ride along with before it is sent on its own.
         * Default 5 ms. Package-private: tests set it long to see acks pending.
         *
         * @throws NullPointerException when {@code delay} is null
         * @throws IllegalArgumentException when not within [0, 1 h]
         * @throws IllegalStateException when already set
         */
        Builder<T> ackDelay(Duration delay) {
            once(ackDelay, "ackDelay");
            Objects.requireNonNull(delay, "ackDelay cannot be null");
            if (delay.isNegative() || delay.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("ackDelay must be within [0, 1 h], got " + delay);
            }
            this.ackDelay = delay;
            return this;
        }

        /**
         * Start even when the server's {@code maxmemory-policy} is {@code allkeys-*} (Redis may evict queue keys
         * and lose jobs), with a WARN instead of the {@link IllegalStateException} {@link
         * DelayQueueWorker#start()} throws by default. Default false.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<T> allowEvictionPolicy(boolean allow) {
            once(allowEvictionPolicyValue, "allowEvictionPolicy");
            this.allowEvictionPolicyValue = allow;
            this.allowEvictionPolicy = allow;
            return this;
        }

        /**
         * How long the worker keeps renewing the visibility of one running job. Default: no limit, a job is
         * renewed for as long as its handler runs. After this time its claim runs out one visibility timeout
         * after the last renewal, and the job is redelivered (spending an attempt) while this handler may
         * still run: a bound for handlers that hang.
         *
         * @throws NullPointerException when {@code limit} is null
         * @throws IllegalArgumentException when {@code limit} is not positive
         * @throws IllegalStateException when already set
         */
        public Builder<T> maxHandlerTime(Duration limit) {
            once(maxHandlerTime, "maxHandlerTime");
            Objects.requireNonNull(limit, "maxHandlerTime cannot be null");
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("maxHandlerTime must be positive, got " + limit);
            }
            this.maxHandlerTime = limit;
            return this;
        }

        /**
         * Interrupt a handler's thread when its job's claim is lost (a renewal was refused: the job was
         * cancelled or redelivered; see {@link Job#isClaimLost()}). Default false: the handler runs on and
         * can poll {@link Job#isClaimLost()}. Either way its ack is refused with one WARN.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<T> interruptOnClaimLost(boolean interrupt) {
            once(interruptOnClaimLostValue, "interruptOnClaimLost");
            this.interruptOnClaimLostValue = interrupt;
            this.interruptOnClaimLost = interrupt;
            return this;
        }

        /**
         * Builds the worker; {@link DelayQueueWorker#start()} starts it.
         *
         * @throws UnsupportedOperationException when virtual threads are asked for on Java older than 21
         */
        public DelayQueueWorker<T> build() {
            if (concurrency == 0) {
                concurrency = 1;
            }
            if (virtualThreads == null) {
                virtualThreads = false;
            }
            if (fallbackPoll == null) {
                fallbackPoll = Duration.ofSeconds(1);
            }
            if (ackDelay == null) {
                ackDelay = DEFAULT_ACK_DELAY;
            }
            return new DelayQueueWorker<>(this);
        }

        private static void once(Object current, String setting) {
            if (current != null) {
                throw new IllegalStateException(setting + " was already set to " + current);
            }
        }
    }
}
