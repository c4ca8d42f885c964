package io.github.deferlock.delay.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a job's headers in front of its payload in the envelope, and reads them back. With headers the
 * envelope's payload field is
 *
 * <pre>{@code <0x1E><block length>:<key length>:<key><value length>:<value>...<payload>}</pre>
 *
 * <p>with every length the decimal count of UTF-8 bytes. {@code 0x1E} (record separator) never starts a JSON
 * text, so a field without it is a payload alone: jobs stored without headers (by this or an older version)
 * read as before. Lua never looks inside the payload field, so every script carries the headers along with
 * it (delays, retries, reschedules, dead letters and their requeue). Stateless and threadsafe.
 */
public final class HeaderCodec {
    /** The first byte of a payload field that holds headers. */
    public static final byte MARKER = 0x1E;
    /**
     * The first byte of a payload field of a job with a priority above 0, followed by the priority's digit and
     * then the field as without it (unit separator: never starts JSON nor a headers block).
     */
    public static final byte PRIORITY = 0x1F;

    /**
     * The first byte of a job's concurrency key in the payload field, after the priority prefix and before the
     * headers: {@code <0x1D><key length>:<key>} (group separator: never starts JSON nor a headers block; the
     * scripts read it, keylimits.lua).
     */
    public static final byte KEY = 0x1D;

    /** The priority in the payload field starting at {@code from}: 0 when it has no priority prefix. */
    static int priorityAt(byte[] raw, int from) {
        if (from + 1 < raw.length && raw[from] == PRIORITY && raw[from + 1] >= '0' && raw[from + 1] <= '9') {
            return raw[from + 1] - '0';
        }
        return 0;
    }

    private HeaderCodec() {}

    /** The envelope's payload field: {@code payload} alone when there are no headers. */
    public static byte[] tail(Map<String, String> headers, byte[] payload) {
        return tail(0, headers, payload);
    }

    /**
     * The envelope's payload field of a job of {@code priority} (0 to 9): with a priority above 0 it starts with
     * {@link #PRIORITY} and the priority's digit, which the scripts read to pick the job's due zset (levels.lua);
     * priority 0 writes nothing, so the field is the same as without priorities.
     */
    public static byte[] tail(int priority, Map<String, String> headers, byte[] payload) {
        return tail(priority, null, headers, payload);
    }

    /**
     * The envelope's payload field of a job of {@code priority} (0 to 9) with the concurrency key {@code key}
     * (null: none, and the field is as without keys): {@link #PRIORITY} and the digit when above 0, then {@link
     * #KEY}, the key's length in UTF-8 bytes, {@code ':'} and the key, then the headers and the payload.
     */
    public static byte[] tail(int priority, String key, Map<String, String> headers, byte[] payload) {
        byte[] field = headersAndPayload(headers, payload);
        if (priority == 0 && key == null) {
            return field;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(field.length + 16);
        if (priority != 0) {
            out.write(PRIORITY);
            out.write('0' + priority);
        }
        if (key != null) {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            out.write(KEY);
            out.writeBytes((k.length + ":").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(k);
        }
        out.writeBytes(field);
        return out.toByteArray();
    }

    /**
     * Where the concurrency key of the payload field at {@code from} (after any priority prefix) lies: {@code {key
     * offset, key length}}, or null when the field has none.
     */
    static int[] locateKey(byte[] raw, int from) {
        if (from >= raw.length || raw[from] != KEY) {
            return null;
        }
        int len = 0;
        for (int i = from + 1; i < raw.length && i < from + 8; i++) {
            byte b = raw[i];
            if (b == ':') {
                return i == from + 1 || i + 1 + len > raw.length ? null : new int[] {i + 1, len};
            }
            if (b < '0' || b > '9') {
                return null;
            }
            len = len * 10 + (b - '0');
        }
        return null;
    }

    private static byte[] headersAndPayload(Map<String, String> headers, byte[] payload) {
        if (headers.isEmpty()) {
            return payload;
        }
        ByteArrayOutputStream block = new ByteArrayOutputStream(64 * headers.size());
        for (Map.Entry<String, String> h : headers.entrySet()) {
            lengthPrefixed(block, h.getKey().getBytes(StandardCharsets.UTF_8));
            lengthPrefixed(block, h.getValue().getBytes(StandardCharsets.UTF_8));
        }
        byte[] prefix = (block.size() + ":").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 + prefix.length + block.size() + payload.length);
        out.write(MARKER);
        out.writeBytes(prefix);
        out.writeBytes(block.toByteArray());
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /**
     * Where the headers block of the payload field starting at {@code from} lies: {@code {block offset, block
     * length}}, or null when the field holds no (readable) headers block, so it is all payload.
     */
    static int[] locate(byte[] raw, int from) {
        if (from >= raw.length || raw[from] != MARKER) {
            return null;
        }
        int colon = -1;
        long len = 0;
        for (int i = from + 1; i < raw.length && i < from + 12; i++) {
            byte b = raw[i];
            if (b == ':') {
                colon = i;
                break;
            }
            if (b < '0' || b > '9') {
                return null;
            }
            len = len * 10 + (b - '0');
        }
        if (colon <= from + 1 || colon + 1 + len > raw.length) {
            return null;
        }
        return new int[] {colon + 1, (int) len};
    }

    /**
     * The headers in {@code raw[offset, offset + length)}, in stored order; unmodifiable.
     *
     * @throws IllegalArgumentException when the block is malformed
     */
    public static Map<String, String> decode(byte[] raw, int offset, int length) {
        Map<String, String> out = new LinkedHashMap<>();
        int end = offset + length;
        int[] pos = {offset};
        while (pos[0] < end) {
            String key = readPrefixed(raw, pos, end);
            String value = readPrefixed(raw, pos, end);
            out.put(key, value);
        }
        return Collections.unmodifiableMap(out);
    }

    private static void lengthPrefixed(ByteArrayOutputStream out, byte[] bytes) {
        out.writeBytes((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(bytes);
    }

    private static String readPrefixed(byte[] raw, int[] pos, int end) {
        long len = 0;
        int i = pos[0];
        int digits = 0;
        while (i < end && raw[i] != ':') {
            int d = raw[i] - '0';
            if (d < 0 || d > 9 || ++digits > 9) {
                throw new IllegalArgumentException("malformed job headers: bad length at byte " + i);
            }
            len = len * 10 + d;
            i++;
        }
        if (i >= end || digits == 0 || i + 1 + len > end) {
            throw new IllegalArgumentException("malformed job headers: truncated at byte " + i);
        }
        String s = new String(raw, i + 1, (int) len, StandardCharsets.UTF_8);
        pos[0] = i + 1 + (int) len;
        return s;
    }
}
