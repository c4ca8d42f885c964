package io.github.deferlock.delay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.github.deferlock.delay.internal.Envelope;
import io.github.deferlock.delay.internal.HeaderCodec;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Turns one queue's payloads into the envelope's payload field and back: Jackson JSON for the bound type (no
 * default typing), at most {@code maxPayloadBytes}, with the job's headers in front ({@link HeaderCodec}).
 * Immutable and threadsafe.
 *
 * @param <T> the payload type
 */
final class PayloadCodec<T> {
    private final String queue;
    private final ObjectReader reader;
    private final ObjectWriter writer;
    private final int maxPayloadBytes;

    PayloadCodec(String queue, ObjectReader reader, ObjectWriter writer, int maxPayloadBytes) {
        this.queue = queue;
        this.reader = reader;
        this.writer = writer;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /**
     * The encoded payload.
     *
     * @throws NullPointerException when {@code payload} is null
     * @throws IllegalArgumentException when it cannot be encoded or is over {@code maxPayloadBytes}
     */
    byte[] encode(T payload) {
        Objects.requireNonNull(payload, "payload cannot be null");
        byte[] bytes;
        try {
            bytes = writer.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot encode the payload for queue '" + queue + "': " + e.getOriginalMessage(), e);
        }
        if (bytes.length > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of " + bytes.length + " bytes is over the limit of "
                    + maxPayloadBytes + " bytes (maxPayloadBytes) for queue '" + queue + "'");
        }
        return bytes;
    }

    /** The envelope's payload field for {@code payload} with {@code headers} (already checked). */
    byte[] field(Map<String, String> headers, T payload) {
        return HeaderCodec.tail(headers, encode(payload));
    }

    /** The envelope's payload field of a job of {@code priority} (already checked, 0 to 9). */
    byte[] field(int priority, Map<String, String> headers, T payload) {
        return HeaderCodec.tail(priority, headers, encode(payload));
    }

    /**
     * The envelope's payload field of a job of {@code priority} (already checked, 0 to 9) and concurrency key
     * {@code key} (already checked; null: none).
     */
    byte[] field(int priority, String key, Map<String, String> headers, T payload) {
        return HeaderCodec.tail(priority, key, headers, encode(payload));
    }

    /**
     * The payload of a stored envelope.
     *
     * @throws IOException when it is not JSON of the bound type
     */
    T decode(Envelope env) throws IOException {
        return reader.readValue(env.raw(), env.payloadOffset(), env.payloadLength());
    }
}
