package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger LOG = LoggerFactory.getLogger(Job.class);

    /** The least time between two progress writes of one job: 250 ms. */
    public static final Duration PROGRESS_INTERVAL = Duration.ofMillis(250);
    /** The longest progress note, in UTF-8 bytes. */
    public static final int MAX_PROGRESS_NOTE_BYTES = 256;

    /** Where a job's progress goes: the queue that claimed it. */
    interface ProgressSink {
        /** The queue's clock, ns. */
        long nanoTime();

        /** Stores the progress (progress.lua); false when the receipt is stale. */
        boolean write(Job<?> job, int percent, String note);
    }

    /** A progress report that waits for its turn ({@link #PROGRESS_INTERVAL}). */
    private record Pending(int percent, String note) {}
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
    private final int priority;
    private final String concurrencyKey;
    private final ProgressSink progressSink;
    /** Guards the progress state below, and orders the writes of one job. */
    private final Object progressLock = new Object();

    private boolean progressWritten;
    private long lastProgressNanos;
    private Pending pendingProgress;

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
        this(id, payload, attempts, dueAt, receipt, lastError, visibleUntil, headers, 0, null);
    }

    Job(
            String id,
            T payload,
            int attempts,
            Instant dueAt,
            String receipt,
            String lastError,
            Instant visibleUntil,
            Map<String, String> headers,
            int priority,
            ProgressSink progressSink) {
        this(id, payload, attempts, dueAt, receipt, lastError, visibleUntil, headers, priority, null, progressSink);
    }

    Job(
            String id,
            T payload,
            int attempts,
            Instant dueAt,
            String receipt,
            String lastError,
            Instant visibleUntil,
            Map<String, String> headers,
            int priority,
            String concurrencyKey,
            ProgressSink progressSink) {
        this.priority = priority;
        this.concurrencyKey = concurrencyKey;
        this.progressSink = progressSink;
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

    /**
     * The job's concurrency key ({@link NewJob#withConcurrencyKey}); empty when it has none. While this job runs it
     * takes one of its key's slots ({@link DelayQueue#concurrencyKeys()}).
     */
    public Optional<String> concurrencyKey() {
        return Optional.ofNullable(concurrencyKey);
    }

    /** The job's priority, 0 (the default) to {@link DelayQueue#MAX_PRIORITY} ({@link NewJob#withPriority}). */
    public int priority() {
        return priority;
    }

    /**
     * Reports how far the handler got, for the ops tools ({@code deferlock job get}, the dashboard's job view,
     * {@link DelayQueue#get(String)}). Cheap: one small script call (a {@code HSET} of a short value beside the job,
     * checked against this claim's receipt), and at most one per {@link #PROGRESS_INTERVAL} per job. A report within
     * the interval of the last write is held back, and only the latest held one is kept: it is written by the next
     * report after the interval, by the worker's next renewal of the job (every third of the visibility timeout), or
     * when the handler fails (so the dead letter or retry shows how far the run got). When the handler returns, the
     * ack deletes the progress with the job, so a held-back value is not written. Best effort: a Redis failure is
     * logged at DEBUG and not thrown, and a report after the claim was lost writes nothing. Jobs whose handlers
     * never report progress pay nothing for it.
     *
     * @param percent 0 to 100
     * @param note a short note, at most {@link #MAX_PROGRESS_NOTE_BYTES} UTF-8 bytes of valid Unicode; empty for none
     * @throws NullPointerException when {@code note} is null
     * @throws IllegalArgumentException when {@code percent} is outside 0 to 100, or the note is too long or has an
     *     unpaired surrogate
     */
    public void progress(int percent, String note) {
        Require.within("percent", percent, 0, 100);
        Require.notNull("note", note);
        int bytes;
        try {
            bytes = StandardCharsets.UTF_8
                    .newEncoder()
                    .encode(CharBuffer.wrap(note))
                    .remaining();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    "progress note " + Names.show(note) + " has an unpaired surrogate: it must be valid Unicode", e);
        }
        if (bytes > MAX_PROGRESS_NOTE_BYTES) {
            throw new IllegalArgumentException(
                    "progress note is " + bytes + " UTF-8 bytes, over the limit of " + MAX_PROGRESS_NOTE_BYTES);
        }
        if (progressSink == null) {
            return;
        }
        synchronized (progressLock) {
            long now = progressSink.nanoTime();
            if (progressWritten && now - lastProgressNanos < PROGRESS_INTERVAL.toNanos()) {
                pendingProgress = new Pending(percent, note);
                return;
            }
            pendingProgress = null;
            writeProgress(now, percent, note);
        }
    }

    /** {@link #progress(int, String)} without a note. */
    public void progress(int percent) {
        progress(percent, "");
    }

    /** Writes the held-back progress report, if any (the worker: at a renewal, and when the handler failed). */
    void flushProgress() {
        if (progressSink == null) {
            return;
        }
        synchronized (progressLock) {
            Pending p = pendingProgress;
            if (p != null) {
                pendingProgress = null;
                writeProgress(progressSink.nanoTime(), p.percent(), p.note());
            }
        }
    }

    private void writeProgress(long now, int percent, String note) {
        progressWritten = true;
        lastProgressNanos = now;
        try {
            progressSink.write(this, percent, note);
        } catch (RuntimeException e) {
            LOG.debug("progress of job {} not stored: {}", id(), e.toString());
        }
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
