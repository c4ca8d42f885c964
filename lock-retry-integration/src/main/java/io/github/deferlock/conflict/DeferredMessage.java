package io.github.deferlock.conflict;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
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
 * message}, {@code deferrals} and {@code firstConflictMillis}, and for the queue's own jobs of an ordered DEFER
 * {@code kind} ({@code drain}: a drain token, with {@code token}; {@code dead}: a message on its way to the dead
 * letters, with {@code reason}); that format is internal, kept readable across versions, and not part of this
 * class's API.
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

    /** Null for a message; {@code drain} for a drain token (ordered DEFER); {@code dead} for a dead-letter carrier. */
    @JsonProperty("kind")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private final String kind;

    /** A drain token's token. */
    @JsonProperty("token")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private final String token;

    /** A dead-letter carrier's reason. */
    @JsonProperty("reason")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private final String reason;

    @JsonCreator
    DeferredMessage(
            @JsonProperty("handler") String handler,
            @JsonProperty("key") String key,
            @JsonProperty("messageId") String messageId,
            @JsonProperty("message") JsonNode message,
            @JsonProperty("deferrals") int deferrals,
            @JsonProperty("firstConflictMillis") long firstConflictMillis,
            @JsonProperty("kind") String kind,
            @JsonProperty("token") String token,
            @JsonProperty("reason") String reason) {
        this.handler = Require.notNull("handler", handler);
        this.key = Require.notNull("key", key);
        this.messageId = messageId;
        this.message = Require.notNull("message", message);
        this.deferrals = Require.atLeast("deferrals", deferrals, 1);
        this.firstConflictMillis = firstConflictMillis;
        this.kind = kind;
        this.token = token;
        this.reason = reason;
    }

    static final String DRAIN = "drain";
    static final String DEAD = "dead";

    /** A drain token of ordered DEFER: the job that runs the work parked behind {@code key}. */
    static DeferredMessage drain(String handler, String key, String token, Instant now) {
        return new DeferredMessage(
                handler, key, null, NullNode.getInstance(), 1, now.toEpochMilli(), DRAIN, token, null);
    }

    /** This message as a dead-letter carrier: the job that moves it to the dead letters with {@code reason}. */
    DeferredMessage dead(String why) {
        return new DeferredMessage(handler, key, messageId, message, deferrals, firstConflictMillis, DEAD, null, why);
    }

    /** Null for a message, else {@link #DRAIN} or {@link #DEAD}. */
    String kind() {
        return kind;
    }

    /** A drain token's token. */
    String token() {
        return token;
    }

    /** A dead-letter carrier's reason. */
    String reason() {
        return reason;
    }

    /** A message deferred for the first time, at {@code now}. */
    static DeferredMessage first(String handler, String key, String messageId, JsonNode message, Instant now) {
        return new DeferredMessage(handler, key, messageId, message, 1, now.toEpochMilli(), null, null, null);
    }

    /** The same message, deferred once more. */
    DeferredMessage deferredAgain() {
        return new DeferredMessage(
                handler, key, messageId, message, deferrals + 1, firstConflictMillis, kind, token, reason);
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
                && firstConflictMillis == m.firstConflictMillis
                && Objects.equals(kind, m.kind)
                && Objects.equals(token, m.token)
                && Objects.equals(reason, m.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(handler, key, messageId, message, deferrals, firstConflictMillis, kind, token, reason);
    }

    @Override
    public String toString() {
        return "DeferredMessage[handler=" + handler + ", key=" + key + ", messageId=" + messageId + ", deferrals="
                + deferrals + ", firstConflict=" + firstConflict() + "]";
    }
}
