package io.github.deferlock.conflict;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A message stored by {@link OnConflict#DEFER}: the message itself as JSON plus what is needed to run it
 * again in any process — the handler's name, the lock key, the message id and how often it was deferred.
 * Immutable and threadsafe.
 *
 * <p>With a message id the message is stored under the job id {@code <n>:<handler>:<messageId>}, {@code n}
 * being the handler name's length in UTF-8 bytes, so two different (handler, id) pairs never share a job
 * (docs/names.md).
 *
 * @param handler the name of the {@link ConflictAwareHandler} that runs it
 * @param key the lock key the message needs
 * @param messageId the message's id (the dedup key), or null when the handler has no id function
 * @param message the message, as JSON
 * @param deferrals how many times it was deferred so far (1 after the first deferral)
 * @param firstConflictMillis when the first conflict was seen (epoch millis, local clock)
 */
public record DeferredMessage(
        String handler, String key, String messageId, JsonNode message, int deferrals, long firstConflictMillis) {

    /** Validates the fields. */
    public DeferredMessage {
        Objects.requireNonNull(handler, "handler cannot be null");
        Objects.requireNonNull(key, "key cannot be null");
        Objects.requireNonNull(message, "message cannot be null");
        if (deferrals < 1) {
            throw new IllegalArgumentException("deferrals must be at least 1, not " + deferrals);
        }
    }

    /** The same message, deferred once more. */
    public DeferredMessage deferredAgain() {
        return new DeferredMessage(handler, key, messageId, message, deferrals + 1, firstConflictMillis);
    }
}
