package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.WakeSubscriber;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JobHandler} on the jobs of a {@link DelayQueue}: one dispatcher thread claims jobs in batches
 * (never more than there are free handler threads), and {@code concurrency} handler threads run them.
 * Returning from the handler acks the job; an exception (or error) nacks it with the queue's backoff. A
 * handler that settles the job itself is left alone.
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
 * <p>When nothing is due the dispatcher sleeps until the earliest due time (or visibility deadline) that
 * the claim reported, and is woken early by the notice the enqueue script publishes when a job becomes the
 * earliest one. A lost notice or a dropped subscription cannot stall it: it also polls every {@code
 * fallbackPoll} (default 1 s), so an idle worker costs Redis about one command per second. Redis failures
 * are logged and retried with backoff; handler failures never stop the loop.
 *
 * <p>{@link #close(Duration)} stops claiming, lets running handlers finish within the timeout, then
 * interrupts the rest; what they leave unsettled is redelivered after the visibility timeout.
 *
 * <p>Threadsafe.
 *
 * @param <T> the payload type
 */
public final class DelayQueueWorker<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final long MIN_IDLE_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final AtomicInteger SERIAL = new AtomicInteger();
    /** The most handler threads one worker runs. */
    public static final int MAX_CONCURRENCY = 10_000;

    private final DelayQueue<T> queue;
    private final JobHandler<T> handler;
    private final int concurrency;
    private final int batchSize;
    private final long fallbackPollNanos;
    private final ExecutorService executor;
    private final Semaphore permits;
    private final Thread dispatcher;
    private final WakeSubscriber subscriber;
    private final boolean allowEvictionPolicy;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong wakes = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private volatile boolean running;

    private DelayQueueWorker(Builder<T> b) {
        this.queue = b.queue;
        this.handler = b.handler;
        this.concurrency = b.concurrency;
        this.batchSize = b.batchSize > 0 ? b.batchSize : Math.min(concurrency, 100);
        this.fallbackPollNanos = b.fallbackPoll.toNanos();
        this.allowEvictionPolicy = b.allowEvictionPolicy;
        String base = "deferlock-" + queue.name() + "-" + SERIAL.incrementAndGet();
        this.executor = b.virtualThreads ? virtualThreadExecutor() : platformExecutor(base, concurrency);
        this.permits = new Semaphore(concurrency);
        this.dispatcher = new Thread(this::dispatch, base + "-dispatcher");
        this.dispatcher.setDaemon(true);
        this.subscriber = new WakeSubscriber(queue.redis(), queue.wakeChannel(), this::wake, base + "-wake");
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
     * Checks the server's eviction policy, then starts the dispatcher, the handler threads and the wake
     * subscription.
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
     * Stops claiming, waits up to {@code timeout} for running handlers to finish (and be acked or nacked),
     * then interrupts those still running; jobs they leave unsettled are redelivered after the visibility
     * timeout. Idempotent.
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
        subscriber.close();
        boolean finished = true;
        try {
            if (dispatcher.isAlive()) {
                dispatcher.interrupt();
                dispatcher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            executor.shutdown();
            finished = executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!finished) {
                LOG.warn("queue '{}': handlers still running after {}, interrupting them", queue.name(), timeout);
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
            finished = false;
        }
        return finished;
    }

    private void wake() {
        wakes.incrementAndGet();
        lock.lock();
        try {
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code nanos} unless a wake-up came after {@code seen}; {@code seen < 0} ignores wake-ups. */
    private void await(long nanos, long seen) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (running && (seen < 0 || wakes.get() == seen) && left > 0) {
                left = woken.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private void dispatch() {
        long errorPauseNanos = 0;
        while (running) {
            int n;
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                break;
            }
            n = 1;
            while (n < batchSize && permits.tryAcquire()) {
                n++;
            }
            long seen = wakes.get();
            ClaimBatch<T> batch;
            try {
                batch = queue.claimBatch(n);
                errorPauseNanos = 0;
            } catch (RuntimeException e) {
                permits.release(n);
                errorPauseNanos = errorPauseNanos == 0
                        ? TimeUnit.MILLISECONDS.toNanos(50)
                        : Math.min(errorPauseNanos * 2, Math.max(fallbackPollNanos, TimeUnit.SECONDS.toNanos(1)));
                LOG.warn(
                        "queue '{}': claim failed, retrying in {} ms: {}",
                        queue.name(),
                        TimeUnit.NANOSECONDS.toMillis(errorPauseNanos),
                        e.toString());
                try {
                    await(errorPauseNanos, -1); // a wake-up must not cut the pause short
                } catch (InterruptedException ie) {
                    break;
                }
                continue;
            }
            int claimed = batch.jobs().size();
            for (Job<T> job : batch.jobs()) {
                submit(job);
            }
            permits.release(n - claimed);
            if (claimed == n) {
                continue; // maybe more are due
            }
            long waitNanos = fallbackPollNanos;
            if (batch.nextWakeMs() >= 0) {
                long untilNext = (batch.nextWakeMs() * 1000 - batch.serverNowMicros()) * 1000;
                waitNanos = Math.min(waitNanos, Math.max(untilNext, claimed == 0 ? MIN_IDLE_WAIT_NANOS : 0));
            }
            if (waitNanos > 0) {
                try {
                    await(waitNanos, seen);
                } catch (InterruptedException e) {
                    break;
                }
            }
        }
    }

    private void submit(Job<T> job) {
        try {
            executor.execute(() -> run(job));
        } catch (RejectedExecutionException e) {
            permits.release();
            // closing: hand the job back at once rather than after its visibility timeout
            try {
                queue.reschedule(job, Duration.ZERO, null);
            } catch (RuntimeException re) {
                LOG.warn("queue '{}': could not return job {}: {}", queue.name(), job.id(), re.toString());
            }
        }
    }

    private void run(Job<T> job) {
        try {
            Throwable failure = null;
            try {
                handler.handle(job);
            } catch (Throwable t) {
                failure = t;
                if (t instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
            if (job.isSettled()) {
                return;
            }
            if (failure != null && closed.get() && interruptedBy(failure)) {
                // close() interrupted a handler that did not finish: this is not a failure of the job, so it
                // goes back to due at once without counting an attempt
                settle(job, () -> queue.reschedule(job, Duration.ZERO, null), "return on close");
                return;
            }
            if (failure == null) {
                settle(job, () -> queue.ack(job), "ack");
            } else {
                LOG.debug("queue '{}': job {} attempt {} failed", queue.name(), job.id(), job.attempts(), failure);
                String error = failure.getClass().getName()
                        + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
                settle(job, () -> queue.nack(job, error, null), "nack");
            }
        } finally {
            permits.release();
        }
    }

    private static boolean interruptedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof java.io.InterruptedIOException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }

    private void settle(Job<T> job, java.util.function.BooleanSupplier action, String what) {
        for (int attempt = 1; ; attempt++) {
            try {
                if (!action.getAsBoolean()) {
                    LOG.warn(
                            "queue '{}': {} of job {} refused: its visibility timeout expired and it will be or"
                                    + " was redelivered",
                            queue.name(),
                            what,
                            job.id());
                }
                return;
            } catch (RuntimeException e) {
                if (attempt >= 3) {
                    LOG.warn(
                            "queue '{}': {} of job {} failed, it will be redelivered: {}",
                            queue.name(),
                            what,
                            job.id(),
                            e.toString());
                    return;
                }
                try {
                    Thread.sleep(100L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
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
        private Boolean allowEvictionPolicyValue;
        private boolean allowEvictionPolicy;

        private Builder(DelayQueue<T> queue, JobHandler<T> handler) {
            this.queue = Objects.requireNonNull(queue, "queue cannot be null");
            this.handler = Objects.requireNonNull(handler, "handler cannot be null");
        }

        /**
         * How many handlers run at once. Default 1.
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
         * The most jobs one claim takes (never more than free handlers). Default: the concurrency, at most 100.
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
            return new DelayQueueWorker<>(this);
        }

        private static void once(Object current, String setting) {
            if (current != null) {
                throw new IllegalStateException(setting + " was already set to " + current);
            }
        }
    }
}
