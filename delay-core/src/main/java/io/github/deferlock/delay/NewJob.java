package io.github.deferlock.delay;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One job for {@link DelayQueue#enqueueAll(java.util.List)}: a payload, an optional caller id, and either a
 * delay from now (server clock) or an absolute due time. Immutable.
 *
 * @param id the caller's job id, or null to generate one
 * @param payload the payload
 * @param delay the delay from now; null when {@code at} is set
 * @param at the due time; null when {@code delay} is set
 * @param <T> the payload type
 */
public record NewJob<T>(String id, T payload, Duration delay, Instant at) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException when {@code payload} is null
     * @throws IllegalArgumentException when not exactly one of {@code delay} and {@code at} is set, or the
     *     delay is negative, or the id is empty
     */
    public NewJob {
        Objects.requireNonNull(payload, "payload cannot be null");
        if ((delay == null) == (at == null)) {
            throw new IllegalArgumentException("exactly one of delay and at must be set");
        }
        if (delay != null && delay.isNegative()) {
            throw new IllegalArgumentException("delay cannot be negative, got " + delay);
        }
        if (id != null && id.isEmpty()) {
            throw new IllegalArgumentException("id cannot be empty");
        }
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
}
