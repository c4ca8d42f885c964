package io.github.deferlock.delay;

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
 * @param <T> the payload type
 */
public record NewJob<T>(String id, T payload, Duration delay, Instant at, Map<String, String> headers) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException when {@code payload}, a header key or a header value is null
     * @throws IllegalArgumentException when not exactly one of {@code delay} and {@code at} is set, the delay is
     *     negative, the id is empty, or the headers break a limit
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
        headers = JobHeaders.copyOf(headers);
    }

    /** A job without headers. */
    public NewJob(String id, T payload, Duration delay, Instant at) {
        this(id, payload, delay, at, Map.of());
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
        return new NewJob<>(id, payload, delay, at, more);
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
        return new NewJob<>(id, payload, delay, at, all);
    }
}
