package io.github.deferlock.delay;

import java.time.Instant;
import java.util.Objects;

/**
 * One job in the dead letters, from {@link DelayQueue#deadLetters(int)}. The payload is given as the stored
 * JSON text, since it may be the reason the job died. Immutable.
 *
 * @param id the job id
 * @param attempts deliveries counted before it died
 * @param diedAt when it moved to the dead letters (server clock)
 * @param reason the last error: the handler's failure, "visibility timeout expired ...", or the reason
 *     given to {@link DelayQueue#deadLetter(Job, String)}
 * @param payloadJson the stored payload
 */
public record DeadLetter(String id, int attempts, Instant diedAt, String reason, String payloadJson) {
    /** Validates the components. */
    public DeadLetter {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(reason, "reason cannot be null");
        Objects.requireNonNull(payloadJson, "payloadJson cannot be null");
    }
}
