package io.github.deferlock.dashboard.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Cuts a payload to a preview of at most {@code maxChars} characters (never inside a surrogate pair) and says
 * how long it was. The text is sent as a JSON string; the page shows it as text. Immutable.
 */
final class PayloadPreview {

    private final int maxChars;

    PayloadPreview(int maxChars) {
        this.maxChars = maxChars;
    }

    /** Puts {@code payload}, {@code payloadBytes} and {@code truncated} into {@code out}. */
    void put(Map<String, Object> out, String payload) {
        String text = payload == null ? "" : payload;
        boolean truncated = text.length() > maxChars;
        if (truncated) {
            int end = maxChars;
            if (Character.isHighSurrogate(text.charAt(end - 1))) {
                end--;
            }
            text = text.substring(0, end);
        }
        out.put("payload", text);
        out.put("payloadBytes", payload == null ? 0 : payload.getBytes(StandardCharsets.UTF_8).length);
        out.put("truncated", truncated);
    }
}
