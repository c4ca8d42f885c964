package io.github.deferlock.consumer.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.redis.internal.Require;

/**
 * Writes a message as its JSON body, the same way in every adapter's producer (what {@link PayloadReader} reads
 * back). Stateless.
 */
public final class PayloadWriter {
    private PayloadWriter() {}

    /**
     * {@code message} as UTF-8 JSON bytes.
     *
     * @throws NullPointerException when {@code message} is null
     * @throws IllegalArgumentException when the message cannot be written as JSON
     */
    public static byte[] write(ObjectMapper mapper, Object message) {
        Require.notNull("message", message);
        try {
            return mapper.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write " + message.getClass().getName() + " as JSON", e);
        }
    }
}
