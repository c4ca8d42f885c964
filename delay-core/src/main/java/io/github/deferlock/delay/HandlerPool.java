package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.ClaimPolicy;
import io.github.deferlock.delay.internal.Ticker;
import io.github.deferlock.redis.internal.HandlerThreads;
import io.github.deferlock.redis.internal.Require;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler threads and the claimed jobs waiting for them. The dispatcher {@link #offer}s claimed jobs into
 * the buffer; handler loops (started as jobs arrive, at most {@code concurrency}, on platform or virtual
 * threads) take them oldest first and run them through the {@link Runner}. A job that waited too long in the
 * buffer ({@link ClaimPolicy#isStale}) goes to the runner's give-back instead of being started late.
 *
 * <p>Owns the buffer, the runs in progress (oldest first, to tell stuck ones), the counts of jobs in hand and
 * of loops, and the average run time, all guarded by its own lock; it calls out (to the runner, or to tell the
 * dispatcher there is room for a claim) only without holding it. Threadsafe.
 *
 * @param <T> the payload type
 */
final class HandlerPool<T> {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);

    /** Runs the jobs the pool's threads take. */
    interface Runner<T> {
        /** Runs a job; {@code start} is the reading when it started, {@code due} the reading when it was due. */
        void run(Job<T> job, long start, long due);

        /** Gives back a job that waited too long in the buffer. */
        void giveBackStale(Job<T> job);
    }

    /** A claimed job waiting for a handler thread: the readings of its claim and of its due time. */
    private record Buffered<T>(Job<T> job, long claimedNanos, long dueNanos) {}

    private final String queueName;
    private final ClaimPolicy policy;
    private final Ticker ticker;
    private final ExecutorService executor;
    private final Runner<T> runner;
    private final Runnable roomMade;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition jobsReady = lock.newCondition();
    // guarded by lock:
    private final ArrayDeque<Buffered<T>> buffer = new ArrayDeque<>();
    private final Run runs = new Run(); // sentinel of the handler runs in progress, oldest first
    private int inHand; // claimed and not yet finished: buffered + running
    private int loops; // handler loops started and not ended
    private int idleLoops; // handler loops waiting for a job
    private boolean accepting = true; // false once close() took the buffered jobs
    private volatile long avgHandlerNanos = -1; // -1 until a handler run finished; written under lock
    private volatile boolean closing;

    /**
     * A pool.
     *
     * @param policy its {@code concurrency} is the number of handler threads
     * @param runner runs each job
     * @param roomMade called (without the pool's lock) when handlers made room for a claim
     * @param threadBase the handler threads' name, before {@code -handler-<n>}
     * @param virtualThreads one virtual thread per handler loop rather than platform threads
     * @throws UnsupportedOperationException when virtual threads are asked for on Java older than 21
     */
    HandlerPool(
            String queueName,
            ClaimPolicy policy,
            Ticker ticker,
            Runner<T> runner,
            Runnable roomMade,
            String threadBase,
            boolean virtualThreads) {
        // checked here: a null would otherwise fail later, on a handler thread or the dispatcher's
        this.queueName = Require.notNull("queueName", queueName);
        this.policy = Require.notNull("policy", policy);
        this.ticker = Require.notNull("ticker", ticker);
        // the pool starts, shuts down and awaits its threads, so it makes them too
        this.executor = newExecutor(threadBase, policy.concurrency(), virtualThreads);
        this.runner = Require.notNull("runner", runner);
        this.roomMade = Require.notNull("roomMade", roomMade);
    }

    /**
     * The executor for handler loops: {@code threads} platform daemon threads named {@code <base>-handler-<n>},
     * or one virtual thread per loop.
     *
     * @throws UnsupportedOperationException when virtual threads are asked for on Java older than 21
     */
    private static ExecutorService newExecutor(String base, int threads, boolean virtual) {
        return HandlerThreads.create(base, threads, virtual);
    }

    /** How many jobs the next claim may take now ({@link ClaimPolicy#claimSize}); 0: wait for room. */
    int claimSize(long now) {
        lock.lock();
        try {
            return claimSizeLocked(now);
        } finally {
            lock.unlock();
        }
    }

    private int claimSizeLocked(long now) {
        return policy.claimSize(inHand, buffer.size(), avgHandlerNanos, stalledRuns(now));
    }

    /** Holding the lock: the runs in progress longer than the stall limit, counted from the oldest. */
    private int stalledRuns(long now) {
        long limit = policy.stallLimitNanos(avgHandlerNanos);
        int n = 0;
        for (Run r = runs.next; r != runs && now - r.since > limit; r = r.next) {
            n++;
        }
        return n;
    }

    /** True when a job waits in the buffer. */
    boolean hasBuffered() {
        lock.lock();
        try {
            return !buffer.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** When the oldest buffered job becomes stale; meaningless when none is buffered. */
    long oldestStaleAt() {
        lock.lock();
        try {
            Buffered<T> b = buffer.peekFirst();
            return b == null ? 0 : policy.staleAt(b.claimedNanos());
        } finally {
            lock.unlock();
        }
    }

    /** Takes the buffered jobs that waited too long (no handler took them in time), oldest first. */
    List<Job<T>> takeStale(long now) {
        lock.lock();
        try {
            if (buffer.isEmpty() || !policy.isStale(buffer.peekFirst().claimedNanos(), now)) {
                return List.of();
            }
            List<Job<T>> out = new ArrayList<>();
            while (!buffer.isEmpty() && policy.isStale(buffer.peekFirst().claimedNanos(), now)) {
                out.add(buffer.poll().job());
            }
            inHand -= out.size();
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts claimed jobs in the buffer and starts handler loops for them, up to the concurrency.
     *
     * @param sent the reading when the claim was sent
     * @param received the reading when its reply came (the jobs' claim time)
     * @param serverNowMicros the server time of the claim, to place each job's due time on the ticker
     * @return false when the pool is closing: the jobs were not taken, the caller gives them back
     */
    boolean offer(List<Job<T>> jobs, long sent, long received, long serverNowMicros) {
        if (jobs.isEmpty()) {
            return true;
        }
        int spawn;
        lock.lock();
        try {
            if (!accepting) {
                return false;
            }
            for (Job<T> job : jobs) {
                long due = ClaimPolicy.dueReading(job.dueAt().toEpochMilli(), sent, received, serverNowMicros);
                buffer.add(new Buffered<>(job, received, due));
            }
            inHand += jobs.size();
            for (int i = Math.min(idleLoops, jobs.size()); i > 0; i--) {
                jobsReady.signal();
            }
            spawn = Math.min(policy.concurrency() - loops, Math.max(0, buffer.size() - idleLoops));
            loops += spawn;
        } finally {
            lock.unlock();
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
        return true;
    }

    /** Stops the buffer: idle loops end, later offers are refused. Returns the jobs no handler started. */
    List<Job<T>> close() {
        closing = true;
        lock.lock();
        try {
            accepting = false;
            List<Job<T>> unstarted = new ArrayList<>(buffer.size());
            for (Buffered<T> b; (b = buffer.poll()) != null; ) {
                unstarted.add(b.job());
            }
            inHand -= unstarted.size();
            jobsReady.signalAll(); // idle handler loops end
            return unstarted;
        } finally {
            lock.unlock();
        }
    }

    /** Lets running loops finish; no new ones start. */
    void shutdown() {
        executor.shutdown();
    }

    /** Interrupts the loops still running. */
    void shutdownNow() {
        executor.shutdownNow();
    }

    /** Waits up to {@code nanos} for every loop to end. */
    boolean awaitTermination(long nanos) throws InterruptedException {
        return executor.awaitTermination(nanos, TimeUnit.NANOSECONDS);
    }

    /** True when every loop ended after {@link #shutdown()}. */
    boolean isTerminated() {
        return executor.isTerminated();
    }

    /** True when no handler runs a job (loops waiting for one may still be ending). */
    boolean noRunInProgress() {
        lock.lock();
        try {
            return runs.next == runs;
        } finally {
            lock.unlock();
        }
    }

    /** The average handler run so far, -1 before the first one finished. */
    long averageRunNanos() {
        return avgHandlerNanos; // volatile: read without the lock
    }

    private void handlerLoop() {
        Run run = new Run();
        for (; ; ) {
            Buffered<T> next;
            boolean room;
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
                run.since = ticker.read();
                run.linkBefore(runs);
                room = claimSizeLocked(run.since) > 0;
            } finally {
                lock.unlock();
            }
            if (room) {
                roomMade.run();
            }
            long start = run.since; // only this loop writes its node
            boolean ran = false;
            try {
                if (policy.isStale(next.claimedNanos(), start)) {
                    LOG.debug(
                            "queue '{}': job {} waited too long in the buffer, giving it back",
                            queueName,
                            next.job().id());
                    runner.giveBackStale(next.job());
                } else {
                    runner.run(next.job(), start, next.dueNanos());
                    ran = true;
                }
            } catch (RuntimeException | Error e) { // the runner catches the handler's; this is our own bug
                LOG.error(
                        "queue '{}': job {} could not be run",
                        queueName,
                        next.job().id(),
                        e);
            } finally {
                long now = ticker.read();
                lock.lock();
                try {
                    inHand--;
                    run.unlink();
                    if (ran) {
                        avgHandlerNanos = ClaimPolicy.averageAfter(avgHandlerNanos, now - start);
                    }
                    room = claimSizeLocked(now) > 0;
                } finally {
                    lock.unlock();
                }
                if (room) {
                    roomMade.run();
                }
            }
            if (!closing) {
                Thread.interrupted(); // a handler's leftover interrupt must not reach the next job
            }
        }
    }

    /**
     * A handler run in progress, in a circular list of them oldest first ({@link #runs} is its head). Guarded
     * by the pool's lock; each handler loop reuses its own node.
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
}
