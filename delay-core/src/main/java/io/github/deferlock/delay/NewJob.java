package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One job for {@link DelayQueue#enqueueJob(NewJob)} and {@link DelayQueue#enqueueAll(java.util.List)}: a payload,
 * an optional caller id, either a delay from now (server clock) or an absolute due time, and headers.
 * Immutable.
 *
 * <p>Headers are a small string map stored with the job and handed to its handler ({@link Job#headers()}),
 * e.g. a W3C {@code traceparent}; they stay with the job through delays, retries, reschedules and a requeue
 * from the dead letters. Limits: at most {@link DelayQueue#MAX_HEADERS} headers, each key 1 to {@link
 * DelayQueue#MAX_HEADER_KEY_BYTES} UTF-8 bytes, keys and values together at most {@link
 * DelayQueue#MAX_HEADERS_BYTES} UTF-8 bytes, all valid Unicode.
 *
 * @param id the caller's job id, or null to generate one
 * @param payload the payload
 * @param delay the delay from now; null when {@code at} is set
 * @param at the due time; null when {@code delay} is set
 * @param headers the job's headers (null: none); stored as an unmodifiable copy
 * @param replace what to replace in a waiting job with this id ({@link #replacing}, {@link #debounce}); null:
 *     nothing, an existing id is reported as a duplicate
 * @param priority 0 (the default, as every job without a priority) to {@link DelayQueue#MAX_PRIORITY}: among
 *     due jobs a higher priority is claimed first, equal priorities in due order ({@link #withPriority})
 * @param concurrencyKey the job's concurrency key, or null for none: while as many jobs of the key run as the
 *     queue's limit for it allows ({@link DelayQueue#concurrencyKeys()}), it is held back ({@link
 *     #withConcurrencyKey})
 * @param <T> the payload type
 */
public record NewJob<T>(
        String id,
        T payload,
        Duration delay,
        Instant at,
        Map<String, String> headers,
        Replace replace,
        int priority,
        String concurrencyKey) {

    /**
     * What an enqueue replaces in a waiting job (due or scheduled, not yet claimed) that has the same id. A job in
     * flight is never replaced under its runner, nor a dead one: the result says so ({@link
     * EnqueueResult.Outcome#RUNNING}, {@link EnqueueResult.Outcome#DEAD}). The replaced job keeps its place among
     * jobs of equal due time, its attempts and its last error. Checked in the enqueue script, in the same call.
     */
    public enum Replace {
        /** The payload and headers; the due time stays. */
        PAYLOAD,
        /** The due time (from this job's delay or time); the payload stays. */
        DUE_TIME,
        /** Both. */
        PAYLOAD_AND_DUE_TIME
    }

    /**
     * Validates the components.
     *
     * @throws NullPointerException when {@code payload}, a header key or a header value is null
     * @throws IllegalArgumentException when not exactly one of {@code delay} and {@code at} is set, the delay is
     *     negative, the id is empty, the priority is outside 0 to {@link DelayQueue#MAX_PRIORITY}, the headers
     *     break a limit, or the concurrency key is not 1 to {@link DelayQueue#MAX_CONCURRENCY_KEY_BYTES} UTF-8 bytes
     *     of valid Unicode
     */
    public NewJob {
        Objects.requireNonNull(payload, "payload cannot be null");
        if ((delay == null) == (at == null)) {
            throw new IllegalArgumentException("exactly one of delay and at must be set");
        }
        if (delay != null) {
            Require.notNegative("delay", delay);
        }
        if (id != null && id.isEmpty()) {
            throw new IllegalArgumentException("id cannot be empty");
        }
        if (replace != null && id == null) {
            throw new IllegalArgumentException("replace " + replace + " needs a caller id (a generated id is new)");
        }
        Require.within("priority", priority, 0, DelayQueue.MAX_PRIORITY);
        headers = JobHeaders.copyOf(headers);
        if (concurrencyKey != null) {
            Names.requireValid(Names.Kind.CONCURRENCY_KEY, concurrencyKey);
        }
    }

    /** A job without a concurrency key. */
    public NewJob(
            String id,
            T payload,
            Duration delay,
            Instant at,
            Map<String, String> headers,
            Replace replace,
            int priority) {
        this(id, payload, delay, at, headers, replace, priority, null);
    }

    /** A job of priority 0. */
    public NewJob(String id, T payload, Duration delay, Instant at, Map<String, String> headers, Replace replace) {
        this(id, payload, delay, at, headers, replace, 0);
    }

    /** A job that replaces nothing. */
    public NewJob(String id, T payload, Duration delay, Instant at, Map<String, String> headers) {
        this(id, payload, delay, at, headers, null);
    }

    /** A job without headers that replaces nothing. */
    public NewJob(String id, T payload, Duration delay, Instant at) {
        this(id, payload, delay, at, Map.of());
    }

    /**
     * A debounced job: due {@code window} after the last call. The first call adds it; each later call with the
     * same id while the job waits replaces its payload and headers and pushes its due time out to now + {@code
     * window} (server clock), so the handler runs once, with the last payload, {@code window} after a burst of
     * calls ends. A call while the job runs or is dead writes nothing ({@link EnqueueResult.Outcome#RUNNING},
     * {@link EnqueueResult.Outcome#DEAD}): the run has the payload it was claimed with. The same as {@code
     * NewJob.of(id, payload, window).replacing(Replace.PAYLOAD_AND_DUE_TIME)}.
     *
     * @throws NullPointerException when an argument is null
     * @throws IllegalArgumentException when {@code window} is negative or {@code id} is empty
     */
    public static <T> NewJob<T> debounce(String id, T payload, Duration window) {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(window, "window cannot be null");
        return new NewJob<>(id, payload, window, null, Map.of(), Replace.PAYLOAD_AND_DUE_TIME);
    }

    /**
     * This job, replacing {@code what} of a waiting job with the same id instead of being reported as a duplicate
     * (see {@link Replace}). The result's {@link EnqueueResult#outcome()} says which case happened.
     *
     * @throws NullPointerException when {@code what} is null
     * @throws IllegalArgumentException when this job has no caller id
     */
    public NewJob<T> replacing(Replace what) {
        Objects.requireNonNull(what, "what cannot be null");
        return new NewJob<>(id, payload, delay, at, headers, what, priority, concurrencyKey);
    }

    /** A job due now with a generated id. */
    public static <T> NewJob<T> of(T payload) {
        return new NewJob<>(null, payload, Duration.ZERO, null);
    }

    /** A job due after {@code delay} with a generated id. */
    public static <T> NewJob<T> of(T payload, Duration delay) {
        return new NewJob<>(null, payload, Objects.requireNonNull(delay, "delay cannot be null"), null);
    }

    /** A job with the caller's id, due after {@code delay}. */
    public static <T> NewJob<T> of(String id, T payload, Duration delay) {
        return new NewJob<>(
                Objects.requireNonNull(id, "id cannot be null"),
                payload,
                Objects.requireNonNull(delay, "delay cannot be null"),
                null);
    }

    /** A job due at {@code at} with a generated id. */
    public static <T> NewJob<T> at(T payload, Instant at) {
        return new NewJob<>(null, payload, null, Objects.requireNonNull(at, "at cannot be null"));
    }

    /** A job with the caller's id, due at {@code at}. */
    public static <T> NewJob<T> at(String id, T payload, Instant at) {
        return new NewJob<>(
                Objects.requireNonNull(id, "id cannot be null"),
                payload,
                null,
                Objects.requireNonNull(at, "at cannot be null"));
    }

    /**
     * This job with header {@code key} set to {@code value} (replacing an earlier value of the key).
     *
     * @throws NullPointerException when {@code key} or {@code value} is null
     * @throws IllegalArgumentException when the headers would break a limit (see the class description)
     */
    public NewJob<T> withHeader(String key, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(key, value);
        return new NewJob<>(id, payload, delay, at, more, replace, priority, concurrencyKey);
    }

    /**
     * This job with every header of {@code more} set (replacing earlier values of the same keys).
     *
     * @throws NullPointerException when {@code more}, a key or a value is null
     * @throws IllegalArgumentException when the headers would break a limit (see the class description)
     */
    public NewJob<T> withHeaders(Map<String, String> more) {
        Objects.requireNonNull(more, "headers cannot be null");
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.putAll(more);
        return new NewJob<>(id, payload, delay, at, all, replace, priority, concurrencyKey);
    }

    /**
     * This job with priority {@code priority}: 0 (the default) to {@link DelayQueue#MAX_PRIORITY}. Among the jobs
     * that are due, a worker or {@link DelayQueue#claim(int)} takes those of the highest priority first, and jobs of
     * equal priority in due order (FIFO among equal due times). A job that is not due yet never holds back a due job
     * of a lower priority. Priority is strict (no aging): while due jobs of a higher priority keep coming faster than
     * the workers drain them, lower ones wait (docs/delay-queue.md, "Priorities"). The job keeps its priority through
     * retries, reschedules, a visibility timeout and a requeue from the dead letters; a replacing enqueue ({@link
     * #replacing}) that replaces the payload sets the priority of the new job.
     *
     * @throws IllegalArgumentException when {@code priority} is outside 0 to {@link DelayQueue#MAX_PRIORITY}
     */
    public NewJob<T> withPriority(int priority) {
        return new NewJob<>(id, payload, delay, at, headers, replace, priority, concurrencyKey);
    }

    /**
     * This job with the concurrency key {@code key} (null: none). While as many jobs of the key are claimed as the
     * queue's limit for the key allows ({@link DelayQueue#concurrencyKeys()}: {@code limit(max)} for every key, or
     * {@code limit(key, max)}), a due job of the key is not claimed: the claim script sets it aside, held for its
     * key, and it goes back to due, in its order and priority, as soon as a job of its key ends (acked, failed,
     * dead-lettered, rescheduled, cancelled, or its claim ran out). Jobs of other keys and jobs without a key are
     * claimed meanwhile. A key without a limit limits nothing. The job keeps its key through retries, reschedules
     * (also with a new payload), a visibility timeout and a requeue from the dead letters; a replacing enqueue that
     * replaces the payload sets the key of the new job (docs/delay-queue.md, "Concurrency per key").
     *
     * @throws IllegalArgumentException when {@code key} is not 1 to {@link DelayQueue#MAX_CONCURRENCY_KEY_BYTES}
     *     UTF-8 bytes of valid Unicode
     */
    public NewJob<T> withConcurrencyKey(String key) {
        return new NewJob<>(id, payload, delay, at, headers, replace, priority, key);
    }
}
