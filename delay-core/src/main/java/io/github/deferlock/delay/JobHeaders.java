package io.github.deferlock.delay;

import io.github.deferlock.redis.internal.Names;
import io.github.deferlock.redis.internal.Require;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rules for job headers ({@link NewJob#withHeader}, {@link DelayQueue.Builder#headers}): at most {@link
 * DelayQueue#MAX_HEADERS} headers; a key of 1 to {@link DelayQueue#MAX_HEADER_KEY_BYTES} UTF-8 bytes; keys and
 * values non-null valid Unicode (no unpaired surrogate); all keys and values together at most {@link
 * DelayQueue#MAX_HEADERS_BYTES} UTF-8 bytes. Stateless.
 */
final class JobHeaders {

    private JobHeaders() {}

    /** An unmodifiable, order-keeping copy of {@code headers} (null: empty) that keeps the rules. */
    static Map<String, String> copyOf(Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>(headers);
        check(copy);
        return Collections.unmodifiableMap(copy);
    }

    /**
     * An unmodifiable, order-keeping copy of stored or reported headers (null: empty), without the limits (a
     * snapshot shows what is stored); null keys and values are refused.
     */
    static Map<String, String> snapshot(Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>(headers);
        copy.forEach((k, v) -> Require.notNull("value of header " + Names.show(Require.notNull("header key", k)), v));
        return Collections.unmodifiableMap(copy);
    }

    /** {@code defaults} overlaid with {@code own} (a job's own headers win), checked. */
    static Map<String, String> merge(Map<String, String> defaults, Map<String, String> own) {
        if (defaults == null || defaults.isEmpty()) {
            return own;
        }
        Map<String, String> merged = new LinkedHashMap<>(defaults);
        merged.putAll(own);
        check(merged);
        return Collections.unmodifiableMap(merged);
    }

    private static void check(Map<String, String> headers) {
        Require.within("number of headers", headers.size(), 0, DelayQueue.MAX_HEADERS);
        long total = 0;
        for (Map.Entry<String, String> h : headers.entrySet()) {
            String key = Require.notNull("header key", h.getKey());
            String value = Require.notNull("value of header " + Names.show(key), h.getValue());
            int keyBytes = utf8Length("header key", key);
            Require.within(
                    "header key " + Names.show(key) + " in UTF-8 bytes", keyBytes, 1, DelayQueue.MAX_HEADER_KEY_BYTES);
            total += keyBytes + utf8Length("value of header " + Names.show(key), value);
        }
        Require.within("headers (keys and values) in UTF-8 bytes", total, 0, DelayQueue.MAX_HEADERS_BYTES);
    }

    /** The UTF-8 length of {@code s}, refusing an unpaired surrogate (it has no UTF-8 form). */
    private static int utf8Length(String what, String s) {
        try {
            return StandardCharsets.UTF_8
                    .newEncoder()
                    .encode(CharBuffer.wrap(s))
                    .remaining();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    what + " " + Names.show(s) + " has an unpaired surrogate: headers must be valid Unicode", e);
        }
    }
}
