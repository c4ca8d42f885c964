package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One job in the dead letters, from {@link DeadLetters#list(int)}. The payload is given as the stored JSON
 * text, since it may be the reason the job died. Immutable.
 *
 * @param id the job id
 * @param attempts deliveries counted before it died
 * @param diedAt when it moved to the dead letters (server clock)
 * @param reason the text stored with it: the handler's failure, "visibility timeout expired ...", the decoder's
 *     error, or the reason given to {@link DelayQueue#deadLetter(Job, String)}; {@link #cause()} says which
 * @param payloadJson the stored payload
 * @param cause why it died
 * @param headers the job's headers ({@link Job#headers()}), empty when none; unmodifiable
 */
public record DeadLetter(
        String id,
        int attempts,
        Instant diedAt,
        String reason,
        String payloadJson,
        DeadLetterCause cause,
        Map<String, String> headers) {
    /** Validates the components. */
    public DeadLetter {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(reason, "reason cannot be null");
        Objects.requireNonNull(payloadJson, "payloadJson cannot be null");
        Objects.requireNonNull(cause, "cause cannot be null");
        headers = JobHeaders.snapshot(headers);
    }

    /** A dead letter of unknown cause without headers (the components before causes and headers existed). */
    public DeadLetter(String id, int attempts, Instant diedAt, String reason, String payloadJson) {
        this(id, attempts, diedAt, reason, payloadJson, DeadLetterCause.UNKNOWN, Map.of());
    }
}
