package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One claimed delivery of a job: its payload, how many deliveries it has had, and the receipt that
 * {@link DelayQueue#ack(Job)}, {@link DelayQueue#nack(Job, String, java.time.Duration)}, {@link
 * DelayQueue#extend(Job, java.time.Duration)}, {@link DelayQueue#reschedule(Job, java.time.Duration,
 * Object)} and {@link DelayQueue#deadLetter(Job, String)} must present. A receipt is valid until the job is
 * settled, cancelled, or returned to due when its visibility timeout expires.
 *
 * <p>Threadsafe; equality is by id and receipt.
 *
 * @param <T> the payload type
 */
public final class Job<T> {
    /** What identifies this delivery, and all that {@link #equals} compares: the job and the claim's receipt. */
    private record Claim(String id, String receipt) {
        Claim {
            Objects.requireNonNull(id, "id cannot be null");
            Objects.requireNonNull(receipt, "receipt cannot be null");
        }
    }

    private final Claim claim;
    private final T payload;
    private final int attempts;
    private final Instant dueAt;
    private final String lastError;
    private final Instant visibleUntil;
    private final Map<String, String> headers;
    private final AtomicBoolean settled = new AtomicBoolean();
    private volatile boolean claimLost;

    Job(String id, T payload, int attempts, Instant dueAt, String receipt, String lastError, Instant visibleUntil) {
        this(id, payload, attempts, dueAt, receipt, lastError, visibleUntil, Map.of());
    }

    Job(
            String id,
            T payload,
            int attempts,
            Instant dueAt,
            String receipt,
            String lastError,
            Instant visibleUntil,
            Map<String, String> headers) {
        this.headers = Objects.requireNonNull(headers, "headers cannot be null");
        this.claim = new Claim(id, receipt);
        this.payload = payload;
        this.attempts = attempts;
        this.dueAt = Objects.requireNonNull(dueAt, "dueAt cannot be null");
        this.lastError = lastError;
        this.visibleUntil = Objects.requireNonNull(visibleUntil, "visibleUntil cannot be null");
    }

    /** The job id. */
    public String id() {
        return claim.id();
    }

    /** The decoded payload. */
    public T payload() {
        return payload;
    }

    /**
     * The job's headers: those given at enqueue ({@link NewJob#withHeader}, {@link DelayQueue.Builder#headers}),
     * kept through delays, retries, reschedules and a requeue from the dead letters. Empty when none;
     * unmodifiable.
     */
    public Map<String, String> headers() {
        return headers;
    }

    /** The number of this delivery: 1 on the first; deferrals by {@code reschedule} do not count. */
    public int attempts() {
        return attempts;
    }

    /** When this delivery was due (Redis server clock). */
    public Instant dueAt() {
        return dueAt;
    }

    /** The receipt of this claim. */
    public String receipt() {
        return claim.receipt();
    }

    /** The error recorded by the previous failed delivery, if any. */
    public Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    /**
     * When the visibility timeout of this claim runs out, estimated with the queue's clock at claim time;
     * after it the job may be redelivered. {@link DelayQueue#extend(Job, java.time.Duration)} moves the
     * deadline in Redis but not this estimate.
     */
    public Instant visibleUntil() {
        return visibleUntil;
    }

    /**
     * True once this delivery was settled (or a settlement was refused) through {@code ack}, {@code nack},
     * {@code reschedule} or {@code deadLetter}; a {@link DelayQueueWorker} does not settle it again.
     */
    public boolean isSettled() {
        return settled.get();
    }

    void markSettled() {
        settled.set(true);
    }

    /**
     * True once a {@link DelayQueueWorker} running this job learnt that its claim is lost: a renewal of its
     * visibility was refused because the job was cancelled, redelivered after its visibility timeout, or
     * settled under another receipt. The job's work may be done (or being done) elsewhere, and its ack will
     * be refused. A long handler can poll this between steps and stop early; with {@link
     * DelayQueueWorker.Builder#interruptOnClaimLost(boolean)} its thread is also interrupted. The worker
     * renews every third of the visibility timeout, so the signal comes within about that long of the loss.
     * Always false for a job claimed with {@link DelayQueue#claim(int)} outside a worker.
     */
    public boolean isClaimLost() {
        return claimLost;
    }

    void markClaimLost() {
        claimLost = true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Job<?> j && claim.equals(j.claim);
    }

    @Override
    public int hashCode() {
        return claim.hashCode();
    }

    @Override
    public String toString() {
        return "Job[id=" + claim.id() + ", attempts=" + attempts + ", dueAt=" + dueAt + ", receipt=" + claim.receipt()
                + "]";
    }
}
