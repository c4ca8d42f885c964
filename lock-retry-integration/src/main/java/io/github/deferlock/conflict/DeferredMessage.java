package io.github.deferlock.conflict;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.deferlock.redis.internal.Require;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A message stored by {@link OnConflict#DEFER}, as the {@link Deferrals} queue holds it: the message plus what
 * is needed to run it again in any process — the handler's name, the lock's name, the message id and how
 * often it was deferred. Read it from the queue's jobs and dead letters; only this module creates one.
 * Immutable and threadsafe.
 *
 * <p>With a message id the message is stored under the job id {@code <n>:<handler>:<messageId>}, {@code n}
 * being the handler name's length in UTF-8 bytes, so two different (handler, id) pairs never share a job
 * (docs/names.md). The stored JSON has the fields {@code handler}, {@code key}, {@code messageId}, {@code
 * message}, {@code deferrals} and {@code firstConflictMillis}; that format is internal, kept readable across
 * versions, and not part of this class's API.
 */
@JsonAutoDetect(
        fieldVisibility = JsonAutoDetect.Visibility.NONE,
        getterVisibility = JsonAutoDetect.Visibility.NONE,
        isGetterVisibility = JsonAutoDetect.Visibility.NONE,
        setterVisibility = JsonAutoDetect.Visibility.NONE,
        creatorVisibility = JsonAutoDetect.Visibility.NONE)
public final class DeferredMessage {

    @JsonProperty("handler")
    private final String handler;

    @JsonProperty("key")
    private final String key;

    @JsonProperty("messageId")
    private final String messageId;

    @JsonProperty("message")
    private final JsonNode message;

    @JsonProperty("deferrals")
    private final int deferrals;

    @JsonProperty("firstConflictMillis")
    private final long firstConflictMillis;

    @JsonCreator
    DeferredMessage(
            @JsonProperty("handler") String handler,
            @JsonProperty("key") String key,
            @JsonProperty("messageId") String messageId,
            @JsonProperty("message") JsonNode message,
            @JsonProperty("deferrals") int deferrals,
            @JsonProperty("firstConflictMillis") long firstConflictMillis) {
        this.handler = Require.notNull("handler", handler);
        this.key = Require.notNull("key", key);
        this.messageId = messageId;
        this.message = Require.notNull("message", message);
        this.deferrals = Require.atLeast("deferrals", deferrals, 1);
        this.firstConflictMillis = firstConflictMillis;
    }

    /** A message deferred for the first time, at {@code now}. */
    static DeferredMessage first(String handler, String key, String messageId, JsonNode message, Instant now) {
        return new DeferredMessage(handler, key, messageId, message, 1, now.toEpochMilli());
    }

    /** The same message, deferred once more. */
    DeferredMessage deferredAgain() {
        return new DeferredMessage(handler, key, messageId, message, deferrals + 1, firstConflictMillis);
    }

    /** The message as stored, for the handler's decoding. */
    JsonNode json() {
        return message;
    }

    /** The name of the {@link ConflictAwareHandler} that runs it. */
    public String handler() {
        return handler;
    }

    /** The name of the lock the message needs (the handler's key function's result). */
    public String key() {
        return key;
    }

    /** The message's id (the dedup key); empty when the handler has no id function. */
    public Optional<String> messageId() {
        return Optional.ofNullable(messageId);
    }

    /** How many times it was deferred so far (1 after the first deferral). */
    public int deferrals() {
        return deferrals;
    }

    /** When the first conflict was seen, by the clock of the process that saw it. */
    public Instant firstConflict() {
        return Instant.ofEpochMilli(firstConflictMillis);
    }

    /** The message as JSON text, as the deferrals' ObjectMapper wrote it (for inspection and tools). */
    public String messageJson() {
        return message.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeferredMessage m
                && handler.equals(m.handler)
                && key.equals(m.key)
                && Objects.equals(messageId, m.messageId)
                && message.equals(m.message)
                && deferrals == m.deferrals
                && firstConflictMillis == m.firstConflictMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(handler, key, messageId, message, deferrals, firstConflictMillis);
    }

    @Override
    public String toString() {
        return "DeferredMessage[handler=" + handler + ", key=" + key + ", messageId=" + messageId + ", deferrals="
                + deferrals + ", firstConflict=" + firstConflict() + "]";
    }
}
