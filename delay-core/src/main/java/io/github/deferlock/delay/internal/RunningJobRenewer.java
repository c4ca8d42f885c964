package io.github.deferlock.delay.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the claims of running jobs alive, like a lock watchdog: every {@code period} one {@link #tick()}
 * renews every registered job with one batched call, except the runs older than {@code maxRun}, which it
 * drops (their claims then run out and the jobs are redelivered). A job whose renewal is refused (its
 * receipt is stale: it was redelivered, settled or cancelled) is reported once to the lost-claim callback,
 * dropped, and its run's thread is interrupted when asked for. A failed call (Redis unreachable, frozen) is
 * tried again every quarter period until one goes through (besides the ticks), so the renewals land soon after
 * Redis is back: within the hold a claim gives them after a gap (liveness.lua), and before the deadlines of a
 * shorter freeze pass.
 *
 * <p>Time comes from the given {@code nanoTime} source, so a test drives {@link #tick()} on a fake clock
 * without {@link #start()}ing the thread. Threadsafe.
 *
 * @param <J> the job type
 */
public final class RunningJobRenewer<J> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunningJobRenewer.class);

    /** Renews a batch of jobs in one call; one result per job, in order: false when the renewal was refused. */
    @FunctionalInterface
    public interface Renewal<J> {
        /**
         * Renews {@code jobs}.
         *
         * @return one result per job, in order
         * @throws RuntimeException when the call failed (the jobs are tried again on the next tick)
         */
        List<Boolean> renew(List<J> jobs);
    }

    private final String name;
    private final long periodNanos;
    private final long maxRunNanos; // Long.MAX_VALUE: no limit
    private final Renewal<J> renewal;
    private final Predicate<J> onLost;
    private final boolean interruptOnLost;
    private final Ticker nanoTime;
    private final Set<Registration<J>> running = ConcurrentHashMap.newKeySet();
    private final Object tickLock = new Object();
    private volatile ScheduledExecutorService scheduler;
    private boolean failing; // guarded by tickLock
    private boolean retryPending; // guarded by tickLock

    /**
     * A renewer; nothing runs until {@link #start()} (or a test's {@link #tick()}).
     *
     * @param name what the log lines name (the queue)
     * @param period the time between ticks (a worker uses a third of the visibility timeout)
     * @param maxRun how long a run is renewed at most, or null for as long as it runs
     * @param renewal the batched renewal call
     * @param onLost told once about each job whose renewal was refused; returns false when that is no loss (the
     *     run settled the job itself), true to go on and interrupt the run's thread when asked for
     * @param interruptOnLost interrupt the thread of a run whose renewal was refused
     * @param nanoTime the clock, {@link Ticker#SYSTEM} outside tests
     */
    public RunningJobRenewer(
            String name,
            java.time.Duration period,
            java.time.Duration maxRun,
            Renewal<J> renewal,
            Predicate<J> onLost,
            boolean interruptOnLost,
            Ticker nanoTime) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.periodNanos = Math.max(1, period.toNanos());
        this.maxRunNanos = maxRun == null ? Long.MAX_VALUE : maxRun.toNanos();
        this.renewal = Objects.requireNonNull(renewal, "renewal cannot be null");
        this.onLost = Objects.requireNonNull(onLost, "onLost cannot be null");
        this.interruptOnLost = interruptOnLost;
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime cannot be null");
    }

    /** Starts the tick thread (a daemon named {@code threadName}). Idempotent. */
    public synchronized void start(String threadName) {
        if (scheduler != null) {
            return;
        }
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        s.scheduleAtFixedRate(this::tickQuietly, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        scheduler = s;
    }

    /**
     * Starts renewing {@code job}, run by {@code thread} (interrupted when the claim is lost and that was asked
     * for; may be null), from now.
     */
    public Registration<J> register(J job, Thread thread) {
        Registration<J> r = new Registration<>(job, thread, nanoTime.read());
        running.add(r);
        return r;
    }

    /**
     * Stops renewing a run: after this returns, the lost-claim callback and the interrupt no longer reach it.
     */
    public void unregister(Registration<J> r) {
        synchronized (r) {
            r.active = false;
        }
        running.remove(r);
    }

    /** How many runs are being renewed. */
    public int size() {
        return running.size();
    }

    /**
     * One renewal: drops the runs older than {@code maxRun}, then renews the others in one call and reports
     * the refused ones.
     *
     * @return how many jobs were sent for renewal
     */
    public int tick() {
        synchronized (tickLock) {
            long now = nanoTime.read();
            List<Registration<J>> batch = new ArrayList<>(running.size());
            for (Registration<J> r : running) {
                if (now - r.startedNanos >= maxRunNanos) {
                    running.remove(r);
                    LOG.debug(
                            "queue '{}': job {} ran longer than maxHandlerTime, its claim is no longer renewed",
                            name,
                            r.job);
                } else {
                    batch.add(r);
                }
            }
            if (batch.isEmpty()) {
                return 0;
            }
            List<J> jobs = new ArrayList<>(batch.size());
            for (Registration<J> r : batch) {
                jobs.add(r.job);
            }
            List<Boolean> results;
            try {
                results = renewal.renew(jobs);
            } catch (RuntimeException e) {
                if (!failing) {
                    LOG.warn(
                            "queue '{}': renewing the claims of {} running jobs failed, trying again in {} ms: {}",
                            name,
                            jobs.size(),
                            TimeUnit.NANOSECONDS.toMillis(retryNanos()),
                            e.toString());
                }
                failing = true;
                return jobs.size();
            }
            failing = false;
            for (int i = 0; i < batch.size() && i < results.size(); i++) {
                if (!results.get(i)) {
                    lost(batch.get(i));
                }
            }
            return jobs.size();
        }
    }

    private void lost(Registration<J> r) {
        running.remove(r);
        synchronized (r) {
            if (!r.active) {
                return; // the run ended meanwhile: its settlement reports the stale receipt
            }
            r.active = false;
            LOG.debug("queue '{}': the claim of running job {} was lost (renewal refused)", name, r.job);
            if (onLost.test(r.job) && interruptOnLost && r.thread != null) {
                r.thread.interrupt();
            }
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException | Error e) { // never let the schedule die
            LOG.error("queue '{}': renewal tick failed", name, e);
        }
        retrySoonWhileFailing();
    }

    /** The pause before a failed renewal is tried again: a quarter of the period. */
    long retryNanos() {
        return Math.max(1, periodNanos / 4);
    }

    /** True while the last renewal call failed. */
    boolean failing() {
        synchronized (tickLock) {
            return failing;
        }
    }

    private void retrySoonWhileFailing() {
        ScheduledExecutorService s = scheduler;
        synchronized (tickLock) {
            if (!failing || retryPending || s == null) {
                return;
            }
            retryPending = true;
        }
        try {
            s.schedule(
                    () -> {
                        synchronized (tickLock) {
                            retryPending = false;
                        }
                        tickQuietly();
                    },
                    retryNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed meanwhile: no more renewals
        }
    }

    /** Stops the tick thread; registered runs are no longer renewed. Idempotent. */
    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    /**
     * One registered run.
     *
     * @param <J> the job type
     */
    public static final class Registration<J> {
        private final J job;
        private final Thread thread;
        private final long startedNanos;
        private boolean active = true; // guarded by this

        private Registration(J job, Thread thread, long startedNanos) {
            this.job = job;
            this.thread = thread;
            this.startedNanos = startedNanos;
        }

        /** The job. */
        public J job() {
            return job;
        }
    }
}
