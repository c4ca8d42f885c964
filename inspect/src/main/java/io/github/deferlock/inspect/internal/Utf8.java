package io.github.deferlock.inspect.internal;

import java.nio.charset.StandardCharsets;

/** Cutting UTF-8 text at a character boundary. Stateless. */
public final class Utf8 {
    private Utf8() {}

    /** Decodes at most {@code max} bytes of {@code bytes}, dropping a character the cut would split. */
    public static String prefix(byte[] bytes, int max) {
        int end = Math.min(bytes.length, max);
        if (end < bytes.length) {
            while (end > 0 && (bytes[end] & 0xC0) == 0x80) { // bytes[end] continues a character: cut before it
                end--;
            }
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }
}
