package io.github.deferlock.consumer.internal;

import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;

/**
 * Reads a message from its JSON body, the same way in every adapter: a body that is absent, JSON {@code null} or
 * does not decode to the message type is a <em>poison</em> message, returned with the reason it goes to the dead
 * letters at once (no attempt can fix it). Threadsafe.
 *
 * @param <M> the message type
 */
public final class PayloadReader<M> {
    private final ObjectReader reader;

    /** A reader that decodes with {@code reader} (bound to the message type). */
    public PayloadReader(ObjectReader reader) {
        this.reader = reader;
    }

    /** A decoded message, or the reason it is poison (exactly one is non-null). */
    public record Decoded<M>(M message, String poison) {}

    /** Decodes {@code body} (UTF-8 JSON bytes; null when the broker had none). */
    public Decoded<M> read(byte[] body) {
        return decode(body, () -> reader.readValue(body));
    }

    /** Decodes {@code body} (JSON text; null when the broker had none). */
    public Decoded<M> read(String body) {
        return decode(body, () -> reader.readValue(body));
    }

    private interface Read<M> {
        M read() throws IOException;
    }

    private Decoded<M> decode(Object body, Read<M> read) {
        if (body == null) {
            return new Decoded<>(null, "the body is absent");
        }
        try {
            M m = read.read();
            return m == null ? new Decoded<>(null, "the body is JSON null") : new Decoded<>(m, null);
        } catch (IOException | RuntimeException e) {
            return new Decoded<>(null, "cannot decode the body: " + e.getMessage());
        }
    }
}
