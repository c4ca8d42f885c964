package io.github.deferlock.delay.internal;

import java.nio.charset.StandardCharsets;

/**
 * A parsed job envelope: {@code <seq: 12 hex><state: w|f|x><attempts>|<receipt>|<due ms>|<payload>}. The
 * payload is not copied; it is the tail of {@link #raw()} from {@link #payloadOffset()}. Immutable.
 *
 * @param state {@code 'w'} waiting (due), {@code 'f'} in flight, {@code 'x'} dead
 * @param attempts deliveries counted so far
 * @param receipt the receipt of the current claim, empty unless in flight
 * @param dueMs in flight: the due time of the current delivery (epoch ms); waiting: the requested due time of
 *     a job scheduled before 1970 (negative; it waits with score 0, due at once); else {@link #NO_DUE}
 * @param raw the whole envelope
 * @param payloadOffset where the payload starts in {@code raw}
 */
public record Envelope(char state, int attempts, String receipt, long dueMs, byte[] raw, int payloadOffset) {

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
        return new Envelope(state, attempts, receipt, due, raw, i3 + 1);
    }

    /** The payload length in bytes. */
    public int payloadLength() {
        return raw.length - payloadOffset;
    }

    /** The payload as UTF-8 text. */
    public String payloadText() {
        return new String(raw, payloadOffset, payloadLength(), StandardCharsets.UTF_8);
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
