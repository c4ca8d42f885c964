package io.github.deferlock.inspect.internal;

import java.nio.charset.StandardCharsets;

/**
 * The parts of a stored job envelope the ops tools show (docs/queue-keys.md, "Envelope"): {@code <seq: 12
 * hex><state: w|f|x><attempts>|<receipt>|<due ms>|<payload JSON>}. Parses the start of an envelope, as the
 * inspector's scripts return at most a capped prefix of it. Immutable.
 *
 * @param state {@code w}, {@code f} or {@code x}
 * @param attempts deliveries counted so far
 * @param payloadStart the bytes of the payload that were returned
 * @param payloadBytes the whole payload's size (from the whole envelope's size)
 */
public record EnvelopeText(char state, int attempts, byte[] payloadStart, long payloadBytes) {
    private static final int SEQ = 12;

    /**
     * Parses an envelope's start.
     *
     * @param start the first bytes of the envelope (including its three {@code '|'} separators)
     * @param totalLength the whole envelope's length in bytes
     * @throws IllegalArgumentException when {@code start} is not an envelope's start
     */
    public static EnvelopeText parse(byte[] start, long totalLength) {
        if (start.length <= SEQ) {
            throw new IllegalArgumentException("not a job envelope: " + show(start));
        }
        char state = (char) start[SEQ];
        int i = SEQ + 1;
        int attempts = 0;
        while (i < start.length && start[i] != '|') {
            byte b = start[i++];
            if (b < '0' || b > '9' || attempts > 100_000_000) {
                throw new IllegalArgumentException("not a job envelope: " + show(start));
            }
            attempts = attempts * 10 + (b - '0');
        }
        int bars = 0;
        while (i < start.length && bars < 3) {
            if (start[i++] == '|') {
                bars++;
            }
        }
        if (bars < 3) {
            throw new IllegalArgumentException("not a job envelope (cut too short?): " + show(start));
        }
        byte[] payload = new byte[start.length - i];
        System.arraycopy(start, i, payload, 0, payload.length);
        return new EnvelopeText(state, attempts, payload, totalLength - i);
    }

    private static String show(byte[] start) {
        String s = new String(start, 0, Math.min(start.length, 40), StandardCharsets.UTF_8);
        return '"' + s.replaceAll("\\p{Cntrl}", "?") + '"';
    }
}
