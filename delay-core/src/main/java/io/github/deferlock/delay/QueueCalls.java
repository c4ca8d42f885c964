package io.github.deferlock.delay;

import java.time.Duration;
import java.util.List;

/**
 * The Redis calls a {@link DelayQueueWorker} makes, each one script call through the queue's package-private
 * hooks. The worker's mechanisms see the queue only through this, so their unit tests run without Redis.
 *
 * <p>Each call is sent once: a failure is thrown at once, without the queue's connection retry. The worker's
 * {@link Settler} and {@link DispatcherLoop} are its only retry layers; they resend a claim or an ack under the
 * token of its first try, so the call's replay record recognises the resend (a lost reply is not a stale
 * receipt); so do nack and give back. Renewal has no replay record (a resent renewal that ran renews again).
 *
 * @param <T> the payload type
 */
interface QueueCalls<T> {

    /** The queue's name, for log lines and events. */
    String name();

    /** Claims up to {@code max} jobs, acking {@code acks} in the same call; see {@link DelayQueue#claimBatch}. */
    ClaimBatch<T> claim(int max, List<Job<T>> acks, String token);

    /**
     * A fresh token naming one claim or settlement call (a resend reuses it); give it back with {@link
     * #done(String)} once the call's reply came.
     */
    String newToken();

    /**
     * The call named {@code token} got its reply and will not be resent: its replay slot names the next call, so
     * the replay records stay bounded by the calls in progress (docs/queue-keys.md). A call that failed is not
     * done: a resend may still come.
     */
    default void done(String token) {}

    /**
     * Acks jobs (at most {@link DelayQueue#MAX_ACKS}) as the call named {@code token}, one result per job; too
     * few replicas is logged, not thrown.
     */
    List<Boolean> ackAll(List<Job<T>> jobs, String token);

    /** Acks one job as the call named {@code token}; false when its receipt is stale. */
    boolean ack(Job<T> job, String token);

    /** Reports a failed run with the queue's backoff as the call named {@code token}; false when stale. */
    boolean nack(Job<T> job, String error, String token);

    /**
     * Returns a claimed job to due now, its attempt not counted, as the call named {@code token}; false when the
     * receipt is stale.
     */
    boolean giveBack(Job<T> job, String token);

    /** Renews the visibility of running jobs, one result per job: false when refused. */
    List<Boolean> extendAll(List<Job<T>> jobs);

    /** Refreshes the queue's registry entry (rate-limited; a failed write is ignored). */
    default void heartbeat() {}

    /**
     * Whether the queue may have jobs or schedules (one {@code EXISTS}): an idle worker whose last claim found
     * the queue empty asks this instead of claiming again. True when not known.
     */
    default boolean mayHaveWork() {
        return true;
    }

    /** The calls of a real queue, each sent once ({@link DelayQueue.WorkerHooks}). */
    static <T> QueueCalls<T> of(DelayQueue<T> queue) {
        DelayQueue<T>.WorkerHooks hooks = queue.workerHooks();
        return new QueueCalls<>() {
            @Override
            public String name() {
                return queue.name();
            }

            @Override
            public void heartbeat() {
                queue.beacon.touch(queue.redis(), queue.name()); // the registry entry, at most every 30 s
            }

            @Override
            public ClaimBatch<T> claim(int max, List<Job<T>> acks, String token) {
                return hooks.claimBatch(max, acks, token);
            }

            @Override
            public boolean mayHaveWork() {
                return hooks.mayHaveWork();
            }

            @Override
            public String newToken() {
                return queue.callToken();
            }

            @Override
            public void done(String token) {
                queue.callDone(token);
            }

            @Override
            public List<Boolean> ackAll(List<Job<T>> jobs, String token) {
                return hooks.ackAll(jobs, false, token);
            }

            @Override
            public boolean ack(Job<T> job, String token) {
                return hooks.ack(job, token);
            }

            @Override
            public boolean nack(Job<T> job, String error, String token) {
                return hooks.nack(job, error, null, token);
            }

            @Override
            public boolean giveBack(Job<T> job, String token) {
                return hooks.reschedule(job, Duration.ZERO, null, token);
            }

            @Override
            public List<Boolean> extendAll(List<Job<T>> jobs) {
                return hooks.extendAll(jobs);
            }
        };
    }
}
