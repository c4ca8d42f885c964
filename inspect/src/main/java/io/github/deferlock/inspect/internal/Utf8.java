package io.github.deferlock.inspect.internal;

import java.nio.charset.StandardCharsets;

/** Cutting UTF-8 text at a character boundary. Stateless. */
public final class Utf8 {
    private Utf8() {}

    /**
     * Decodes at most {@code max} bytes of {@code bytes}, dropping a last character the cut (or the end of
     * {@code bytes}, itself a cut) leaves incomplete.
     */
    public static String prefix(byte[] bytes, int max) {
        int end = Math.min(bytes.length, max);
        int lead = end - 1;
        while (lead >= 0 && end - lead <= 4 && (bytes[lead] & 0xC0) == 0x80) {
            lead--; // walk back over continuation bytes to the start of the last character
        }
        if (lead >= 0) {
            int b = bytes[lead] & 0xFF;
            int length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            if (lead + length > end) {
                end = lead;
            }
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
