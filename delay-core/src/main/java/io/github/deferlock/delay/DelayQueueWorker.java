package io.github.deferlock.delay;

import io.github.deferlock.delay.internal.ClaimPolicy;
import io.github.deferlock.delay.internal.RunningJobRenewer;
import io.github.deferlock.delay.internal.Ticker;
import io.github.deferlock.delay.internal.WakeSubscriber;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 * fallbackPoll} (default 1 s). On a queue its last claim found empty it only looks, with one {@code EXISTS}
 * every two {@code fallbackPoll}s, and claims when the look or a notice says there is work, so an idle worker
 * costs Redis about half a command per second (docs/delay-queue.md, "Idle cost"). Redis failures
 * are logged and retried with backoff; handler failures never stop the loop.
 *
 * <p>{@link #close(Duration)} stops claiming, gives the buffered jobs back to due at once without spending an
 * attempt, lets running handlers finish within the timeout, then interrupts the rest (their jobs are given
 * back the same way), and sends every pending ack before it returns.
 *
 * <p><b>Events.</b> The queue's {@link QueueListener} (see {@link DelayQueue.Builder#listener(QueueListener)})
 * hears each job claimed (with its attempt), handled (run time and lateness), failed (whether it will be
 * retried), dead-lettered, whose claim was lost, and given back, once each, after Redis confirmed it. With no
 * listener the worker builds no event arguments.
 *
 * <p>Inside, each mechanism is a class of its own that owns its state (docs/delay-queue.md, "Inside the
 * worker"): the dispatcher loop, the claim policy, ack batching, settling (the worker's one retry layer), the
 * handler pool and the running-job renewal; this class wires them and keeps the lifecycle.
 *
 * <p>Threadsafe.
 *
 * @param <T> the payload type
 */
public final class DelayQueueWorker<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DelayQueueWorker.class);
    private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DEFAULT_ACK_DELAY = Duration.ofMillis(5);
    private static final Duration DEFAULT_FALLBACK_POLL = Duration.ofSeconds(1);
    private static final AtomicInteger SERIAL = new AtomicInteger();
    /** The most handler threads one worker runs. */
    public static final int MAX_CONCURRENCY = 10_000;

    private final DelayQueue<T> queue;
    private final int concurrency;
    private final long ackDelayNanos;
    private final boolean allowEvictionPolicy;
    private final String threadBase;
    private final Ticker ticker;
    private final Settler<T> settler;
    private final AckBatcher<T> acks;
    private final HandlerPool<T> pool;
    private final DispatcherLoop<T> dispatcher;
    private final RunningJobRenewer<Job<T>> renewer;
    private final WakeSubscriber subscriber;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean running;
    private final boolean fireSchedules;
    private final AtomicBoolean firing = new AtomicBoolean();

    private DelayQueueWorker(Builder<T> b, Ticker ticker) {
        this.queue = b.queue;
        this.fireSchedules = Require.orDefault(b.fireSchedules, true);
        this.ticker = ticker;
        this.concurrency = Require.orDefault(b.concurrency, 1);
        int batchSize = Require.orDefault(b.batchSize, ClaimPolicy.defaultBatchSize(concurrency));
        Duration fallbackPoll = Require.orDefault(b.fallbackPoll, DEFAULT_FALLBACK_POLL);
        this.ackDelayNanos = Require.orDefault(b.ackDelay, DEFAULT_ACK_DELAY).toNanos();
        this.allowEvictionPolicy = Require.orDefault(b.allowEvictionPolicy, false);
        this.threadBase = "deferlock-" + queue.name() + "-" + SERIAL.incrementAndGet();
        QueueCalls<T> calls = QueueCalls.of(queue);
        QueueListener listener = queue.listener();
        ClaimPolicy policy = new ClaimPolicy(concurrency, batchSize, queue.visibilityTimeout(), fallbackPoll);
        this.settler = new Settler<>(calls, listener, Settler.Pause.SLEEP);
        this.acks = new AckBatcher<>(ticker, ackDelayNanos, !queue.waitsForReplicas(), settler, this::ackQueued);
        this.renewer = new RunningJobRenewer<>(
                queue.name(),
                queue.visibilityTimeout().dividedBy(3),
                b.maxHandlerTime,
                jobs -> {
                    List<Boolean> renewed = calls.extendAll(jobs);
                    // after the renewal, so it never waits for them: held-back progress reports are written now
                    jobs.forEach(Job::flushProgress);
                    return renewed;
                },
                job -> JobRunner.claimLost(job, listener, queue.name()),
                Require.orDefault(b.interruptOnClaimLost, false),
                ticker);
        JobRunner<T> runner = new JobRunner<>(
                queue.name(), queue.maxAttempts(), b.handler, renewer, settler, acks, listener, ticker, closed::get);
        this.pool = new HandlerPool<>(
                queue.name(),
                policy,
                ticker,
                runner,
                this::roomMade,
                threadBase,
                Require.orDefault(b.virtualThreads, false));
        this.dispatcher =
                new DispatcherLoop<>(calls, policy, pool, acks, settler, listener, ticker, threadBase + "-dispatcher");
        this.subscriber = new WakeSubscriber(queue.wakeBus(), queue.wakeChannel(), dispatcher::wake);
    }

    private void ackQueued(long sendAt, boolean first, boolean full) {
        dispatcher.ackQueued(sendAt, first, full);
    }

    private void roomMade() {
        dispatcher.roomMade();
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
     * <p>The wake subscription is taken from the queue's notice bus: the bus of the {@link RedisQueues} the
     * queue was built through (one subscription connection for the workers of all its queues), or, for a queue
     * built with {@link DelayQueue#builder(redis.clients.jedis.UnifiedJedis, String, Class)}, the queue's own
     * (one connection for that queue's workers, held from the first worker's start to the last one's close).
     *
     * @return this worker
     * @throws IllegalStateException when already started, when closed, when the queue was built through a
     *     {@link RedisQueues} that is closed, or when the server's {@code maxmemory-policy} is {@code
     *     allkeys-*} and eviction was not allowed
     */
    public DelayQueueWorker<T> start() {
        requireStartable();
        EvictionPolicyCheck.check(queue.name(), queue.evictionPolicy(), allowEvictionPolicy);
        requireStartable();
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("worker for queue '" + queue.name() + "' was already started");
        }
        running = true;
        renewer.start(threadBase + "-renewer");
        subscriber.start();
        dispatcher.start();
        if (fireSchedules && firing.compareAndSet(false, true)) {
            queue.schedules().tickerUser(threadBase + "-schedules");
        }
        return this;
    }

    private void requireStartable() {
        if (started.get()) {
            throw new IllegalStateException("worker for queue '" + queue.name() + "' was already started");
        }
        if (closed.get()) {
            throw new IllegalStateException("worker for queue '" + queue.name() + "' was closed");
        }
        queue.wakeBus().requireOpen();
    }

    /** The dispatcher's loop rounds so far: tests check that it sleeps when it has nothing to do. */
    long dispatcherRounds() {
        return dispatcher.rounds();
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
        Require.notNegative("timeout", timeout);
        if (!closed.compareAndSet(false, true)) {
            return pool.isTerminated();
        }
        // saturate: a timeout of centuries means "wait as long as it takes", not an overflow
        long timeoutNanos = timeout.compareTo(Duration.ofDays(10_000)) > 0 ? Long.MAX_VALUE / 4 : timeout.toNanos();
        long deadline = ticker.read() + timeoutNanos;
        running = false;
        if (firing.compareAndSet(true, false)) {
            queue.schedules().tickerUserGone();
        }
        // stop() wakes the dispatcher; no interrupt: a claim it is sending must come back and give its jobs
        // back through Redis, which an interrupted thread could not do
        dispatcher.stop();
        boolean interrupted = false;
        boolean finished = false;
        try {
            for (Job<T> job : pool.close()) {
                settler.giveBack(job, "return on close");
            }
            pool.shutdown();
            finished = awaitHandlers(deadline);
            if (!finished) {
                LOG.warn("queue '{}': handlers still running after {}, interrupting them", queue.name(), timeout);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (!finished) {
                pool.shutdownNow();
            }
            if (!interrupted && dispatcher.isAlive()) {
                // it is in a Redis call, which ends within the client's timeouts: a claim may carry acks, and
                // the jobs it returns must be given back, so close() does not return before it did
                interrupted = !dispatcher.join(deadline);
            }
            settler.sendAcks(acks.close()); // a handler that finishes from now on acks its job itself
            renewer.close(); // no handler runs any more (or close gave up on them: they are redelivered)
            subscriber.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return finished;
    }

    /** Waits for the handler threads to end, sending the acks of the jobs they finish meanwhile. */
    private boolean awaitHandlers(long deadline) throws InterruptedException {
        for (; ; ) {
            long left = deadline - ticker.read();
            if (pool.awaitTermination(Math.max(0, Math.min(left, ackDelayNanos)))) {
                return true;
            }
            if (left <= 0) {
                return pool.noRunInProgress(); // loops that waited for a job are ending: they ran nothing
            }
            settler.sendAcks(acks.drainAll());
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
        // null: unset; defaults are resolved when the worker is built
        private final DelayQueue<T> queue;
        private final JobHandler<T> handler;
        private Integer concurrency;
        private Boolean virtualThreads;
        private Integer batchSize;
        private Duration fallbackPoll;
        private Duration ackDelay;
        private Boolean allowEvictionPolicy;
        private Duration maxHandlerTime;
        private Boolean interruptOnClaimLost;
        private Boolean fireSchedules;

        private Builder(DelayQueue<T> queue, JobHandler<T> handler) {
            this.queue = Require.notNull("queue", queue);
            this.handler = Require.notNull("handler", handler);
        }

        /**
         * How many handlers run at once. Default 1. Handler threads start as jobs arrive; a worker holds at most
         * {@code concurrency + batchSize} claimed jobs (see {@link #batchSize(int)}).
         *
         * @throws IllegalArgumentException when {@code n} is not within [1, {@link #MAX_CONCURRENCY}]
         * @throws IllegalStateException when already set
         */
        public Builder<T> concurrency(int n) {
            this.concurrency =
                    Require.setOnce("concurrency", concurrency, Require.within("concurrency", n, 1, MAX_CONCURRENCY));
            return this;
        }

        /**
         * Run handlers on virtual threads (Java 21+). Default false: platform daemon threads.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<T> virtualThreads(boolean on) {
            this.virtualThreads = Require.setOnce("virtualThreads", virtualThreads, on);
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
            this.batchSize =
                    Require.setOnce("batchSize", batchSize, Require.within("batchSize", n, 1, DelayQueue.MAX_CLAIM));
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
            this.fallbackPoll = Require.setOnce(
                    "fallbackPoll",
                    fallbackPoll,
                    Require.within("fallbackPoll", interval, Duration.ofMillis(1), Duration.ofHours(1)));
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
            this.ackDelay = Require.setOnce(
                    "ackDelay", ackDelay, Require.within("ackDelay", delay, Duration.ZERO, Duration.ofHours(1)));
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
            this.allowEvictionPolicy = Require.setOnce("allowEvictionPolicy", allowEvictionPolicy, allow);
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
            this.maxHandlerTime =
                    Require.setOnce("maxHandlerTime", maxHandlerTime, Require.positive("maxHandlerTime", limit));
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
            this.interruptOnClaimLost = Require.setOnce("interruptOnClaimLost", interruptOnClaimLost, interrupt);
            return this;
        }

        /**
         * Whether this worker fires the queue's recurring schedules ({@link DelayQueue#schedules()}). Default true.
         * Firing takes one thread per queue per process, shared by every firing worker of the queue, one small
         * read-only script call per 5 s while the queue has no schedule due sooner (none on enqueue, claim or
         * ack), and, once the queue has schedules, a subscription to its schedule-wake channel on the notice bus
         * the workers already use. Any number of processes may fire a queue's schedules: each slot fires once.
         *
         * @throws IllegalStateException when already set
         */
        public Builder<T> fireSchedules(boolean fire) {
            this.fireSchedules = Require.setOnce("fireSchedules", fireSchedules, fire);
            return this;
        }

        /**
         * Builds the worker; {@link DelayQueueWorker#start()} starts it.
         *
         * @throws UnsupportedOperationException when virtual threads are asked for on Java older than 21
         */
        public DelayQueueWorker<T> build() {
            return new DelayQueueWorker<>(this, Ticker.SYSTEM);
        }
    }
}
