package io.github.deferlock.inspect;

import java.time.Instant;
import java.util.Objects;

/**
 * One dead letter on a {@link DeadLetterPage}. Immutable.
 *
 * @param id the job id
 * @param attempts deliveries counted before it died
 * @param lastError the last error recorded (empty when none was)
 * @param diedAt when it moved to the dead letters (server clock)
 * @param payload the start of its payload
 */
public record DeadLetterView(String id, int attempts, String lastError, Instant diedAt, PayloadPreview payload) {
    /** Validates the components. */
    public DeadLetterView {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(lastError, "lastError cannot be null");
        Objects.requireNonNull(diedAt, "diedAt cannot be null");
        Objects.requireNonNull(payload, "payload cannot be null");
    }
}
