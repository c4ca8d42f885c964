package io.github.deferlock.delay.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A parsed job envelope: {@code <seq: 12 hex><state: w|f|x><attempts>|<receipt>|<due ms>|<payload field>},
 * where the payload field is the payload, preceded by the job's headers when it has any ({@link HeaderCodec}),
 * before them by its concurrency key when it has one ({@link HeaderCodec#KEY}), and first by its priority when above 0
 * ({@link HeaderCodec#PRIORITY}).
 * The payload is not copied; it is the tail of {@link #raw()} from {@link #payloadOffset()}. Immutable.
 *
 * @param state {@code 'w'} waiting (due), {@code 'f'} in flight, {@code 'x'} dead
 * @param attempts deliveries counted so far
 * @param receipt in flight: the receipt of the current claim; dead: the code of the cause ({@link
 *     DeadCause}), empty when written by an older version; else empty
 * @param dueMs in flight: the due time of the current delivery (epoch ms); waiting: the requested due time of
 *     a job scheduled before 1970 (negative; it waits with score 0, due at once); else {@link #NO_DUE}
 * @param priority the job's priority, 0 to 9 (a payload field that starts with {@link HeaderCodec#PRIORITY})
 * @param key the job's concurrency key, or null when it has none
 * @param raw the whole envelope
 * @param headersOffset where the headers block starts in {@code raw}, or -1 when the job has no headers
 * @param headersLength the length of the headers block (0 when none)
 * @param payloadOffset where the payload starts in {@code raw}
 */
public record Envelope(
        char state,
        int attempts,
        String receipt,
        long dueMs,
        int priority,
        String key,
        byte[] raw,
        int headersOffset,
        int headersLength,
        int payloadOffset) {

    /** {@link #dueMs()} when the envelope holds no due time. */
    public static final long NO_DUE = Long.MIN_VALUE;

    private static final int HEADER = 13;

    /**
     * Parses an envelope.
     *
     * @throws IllegalArgumentException when {@code raw} is not an envelope
     */
    public static Envelope parse(byte[] raw) {
        if (raw.length < HEADER + 3) {
            throw new IllegalArgumentException("not a job envelope: too short");
        }
        char state = (char) raw[HEADER - 1];
        int i1 = indexOf(raw, HEADER);
        int i2 = indexOf(raw, i1 + 1);
        int i3 = indexOf(raw, i2 + 1);
        int attempts = (int) parseLong(raw, HEADER, i1, 0);
        String receipt = new String(raw, i1 + 1, i2 - i1 - 1, StandardCharsets.US_ASCII);
        long due =
                i3 > i2 + 1 && raw[i2 + 1] == '-' ? -parseLong(raw, i2 + 2, i3, 0) : parseLong(raw, i2 + 1, i3, NO_DUE);
        int priority = HeaderCodec.priorityAt(raw, i3 + 1);
        int from = priority == 0 ? i3 + 1 : i3 + 3;
        String key = null;
        int[] k = HeaderCodec.locateKey(raw, from);
        if (k != null) {
            key = new String(raw, k[0], k[1], StandardCharsets.UTF_8);
            from = k[0] + k[1];
        }
        int[] block = HeaderCodec.locate(raw, from);
        if (block == null) {
            return new Envelope(state, attempts, receipt, due, priority, key, raw, -1, 0, from);
        }
        return new Envelope(state, attempts, receipt, due, priority, key, raw, block[0], block[1], block[0] + block[1]);
    }

    /** The payload length in bytes. */
    public int payloadLength() {
        return raw.length - payloadOffset;
    }

    /** The payload as UTF-8 text. */
    public String payloadText() {
        return new String(raw, payloadOffset, payloadLength(), StandardCharsets.UTF_8);
    }

    /**
     * The job's headers, in stored order; empty when it has none. Unmodifiable.
     *
     * @throws IllegalArgumentException when the stored headers are malformed
     */
    public Map<String, String> headers() {
        return headersOffset < 0 ? Map.of() : HeaderCodec.decode(raw, headersOffset, headersLength);
    }

    /** For a dead job: why it died, {@link DeadCause#UNKNOWN} when written by an older version. */
    public DeadCause deadCause() {
        return DeadCause.ofCode(receipt);
    }

    private static int indexOf(byte[] raw, int from) {
        for (int i = from; i < raw.length; i++) {
            if (raw[i] == '|') {
                return i;
            }
        }
        throw new IllegalArgumentException("not a job envelope: missing field separator");
    }

    private static long parseLong(byte[] raw, int from, int to, long empty) {
        if (from == to) {
            return empty;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = raw[i] - '0';
            if (d < 0 || d > 9) {
                throw new IllegalArgumentException("not a job envelope: bad number");
            }
            v = v * 10 + d;
        }
        return v;
    }
}
